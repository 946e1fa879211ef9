import Foundation
import MoonRunnerCore

/// A seeded generator, so that every run sees the same noise.
public struct GPSTestRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Standard normal deviate (Box–Muller).
    public mutating func gaussian() -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &self)
        let u2 = Double.random(in: 0..<1, using: &self)
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}

/// Simulated receiver: the true path plus white noise, a slowly wandering
/// (first-order Gauss–Markov) error per axis, noisy Doppler speed and course,
/// and GST 1σ values, one fix per second.
public struct SimulatedGPSReceiver: Sendable {
    public var rng: GPSTestRandom
    public var white = 1.5          // m, 1σ per axis
    public var wander = 3.0         // m, 1σ per axis, correlated over `tau`
    public var tau = 40.0           // s
    public var speedNoise = 0.12    // m/s
    public var courseNoise = 2.0    // degrees
    public var altitudeNoise = 2.0  // m, white
    public var doppler = true
    /// The plane the positions given to `fix` are in.
    public var projection = Self.plane
    private var ce = 0.0, cn = 0.0
    public static let lat0 = 47.0, lon0 = 8.0
    public static let plane = LocalTangentPlane(originLat: lat0, originLon: lon0)

    public init(seed: UInt64) { rng = GPSTestRandom(seed: seed) }

    /// One fix for a wearer at (east, north) moving with (ve, vn).
    public mutating func fix(t: Double, east: Double, north: Double, ve: Double, vn: Double,
                             altitude: Double = 400) -> GPSFix {
        let a = exp(-1 / tau)
        let k = (1 - a * a).squareRoot() * wander
        ce = a * ce + k * rng.gaussian()
        cn = a * cn + k * rng.gaussian()
        let e = east + ce + white * rng.gaussian()
        let n = north + cn + white * rng.gaussian()
        let (lat, lon) = projection.unproject(east: e, north: n)
        var speed = Double.nan, track = Double.nan
        if doppler {
            let mve = ve + speedNoise * rng.gaussian() * 0.7, mvn = vn + speedNoise * rng.gaussian() * 0.7
            speed = abs(hypot(mve, mvn))
            let c = atan2(mve, mvn) * 180 / .pi + courseNoise * rng.gaussian()
            track = (c + 360).truncatingRemainder(dividingBy: 360)
        }
        let sigma = (white * white + wander * wander).squareRoot()
        // `eph` as gpsd makes it from DOP: several times the real 95 % radius.
        let eph = 4 * sigma * GPSErrorModel.sigmasIn95PercentRadius
        return GPSFix(time: 1_700_000_000 + t, mode: 3, latitude: lat, longitude: lon,
                      altitude: altitude + altitudeNoise * rng.gaussian(), eph: eph,
                      epv: 40, speed: speed, track: track,
                      stdLat: sigma, stdLon: sigma, stdAlt: altitudeNoise)
    }
}
