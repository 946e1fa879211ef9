import Testing
@testable import MoonRunnerCore
import MoonRunnerTestSupport

@Suite("Slow steady progress and the climb as evidence of motion")
struct SlowProgressTests {
    /// Doppler speeds of a receiver moving at `v` m/s with 0.1 m/s of noise per axis (seeded).
    static func speeds(_ v: Double, count: Int, seed: UInt64) -> [Double] {
        var rng = GPSTestRandom(seed: seed)
        return (0..<count).map { _ in
            let along = v + 0.1 * rng.gaussian(), across = 0.1 * rng.gaussian()
            return (along * along + across * across).squareRoot()
        }
    }

    @Test("a standing receiver's Doppler noise (0.1-0.2 m/s) never creeps; a hiker at 0.4 m/s creeps on nearly every fix",
          arguments: [1, 2, 3] as [UInt64])
    func creeping(seed: UInt64) {
        var standing = SlowProgress(), hiking = SlowProgress()
        var standingCreeps = 0, hikingCreeps = 0
        let still = Self.speeds(0, count: 600, seed: seed), slow = Self.speeds(0.4, count: 600, seed: seed + 10)
        for i in 0..<600 {
            standing.observe(speed: still[i], at: Double(i), creepSpeed: 0.3)
            hiking.observe(speed: slow[i], at: Double(i), creepSpeed: 0.3)
            if standing.creeping { standingCreeps += 1 }
            if hiking.creeping { hikingCreeps += 1 }
        }
        #expect(standingCreeps == 0)
        // The first four fixes fill the window; a few medians dip with the noise.
        #expect(hikingCreeps >= 560, "\(hikingCreeps) of 600")
    }

    @Test("the stop is dated at the last fix at speed and the setting off at the first, not when the median turns")
    func dating() {
        var p = SlowProgress()
        let speeds = [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.45, 0.5, 0.5, 0.5]
        var lastWhileCreeping: [Double] = [], starts: [Double] = []
        for (i, v) in speeds.enumerated() {
            let was = p.creeping
            p.observe(speed: v, at: Double(i), creepSpeed: 0.3)
            if p.creeping && i < 12 { lastWhileCreeping.append(p.lastMotion) }
            if p.creeping && !was { starts.append(p.since) }
        }
        #expect(lastWhileCreeping.max() == 5, "the last fix at 0.5 m/s before the stop")
        #expect(starts == [0, 12], "the first fixes at speed of each stretch")
    }

    @Test("a barometric climb of 0.1 m/s is evidence dated at the middle of its 20 s; a standing barometer is none")
    func baroClimb() {
        var climbing = ClimbEvidence(), standing = ClimbEvidence()
        var rng = GPSTestRandom(seed: 7)
        var dated: Double?, noise: [Double] = []
        for t in 0..<60 {
            dated = climbing.add(altitude: 500 + 0.1 * Double(t) + 0.1 * rng.gaussian(), sigma: .nan, source: .barometric,
                                 at: Double(t)) ?? dated
            if let d = standing.add(altitude: 500 + 0.3 * rng.gaussian(), sigma: .nan, source: .barometric, at: Double(t)) {
                noise.append(d)
            }
        }
        #expect(dated == 49, "the last fix's window is 39-59 s")
        #expect(noise.isEmpty)
    }

    @Test("altitudes kept unjudged fill the window: the first judged fix sees the whole climb")
    func unjudgedAltitudesKept() {
        var kept = ClimbEvidence(), judged = ClimbEvidence()
        var rng = GPSTestRandom(seed: 9)
        var fromKept: Double?, fromJudged: Double?
        for t in 0..<40 {
            let a = 500 + 0.1 * Double(t) + 0.1 * rng.gaussian()
            let last = t == 39
            let k = kept.add(altitude: a, sigma: .nan, source: .barometric, at: Double(t), judged: last)
            #expect(last || k == nil, "an unjudged fix gives no evidence")
            if last { fromKept = k }
            fromJudged = judged.add(altitude: a, sigma: .nan, source: .barometric, at: Double(t))
        }
        #expect(fromKept == 29 && fromJudged == 29, "\(String(describing: fromKept)) \(String(describing: fromJudged))")
    }

    @Test("GPS altitude wandering by 5 m is no climb; a steep fast climb of 0.5 m/s over 60 s is one")
    func gpsClimb() {
        var wander = ClimbEvidence(), steep = ClimbEvidence()
        var rng = GPSTestRandom(seed: 8)
        var drift = 0.0, wandered = 0, climbed = 0
        for t in 0..<300 {
            drift = 0.98 * drift + 0.2 * 5 * rng.gaussian()  // 1σ about 5 m, correlated over 50 s
            if wander.add(altitude: 300 + drift, sigma: 5, source: .gps, at: Double(t)) != nil { wandered += 1 }
            if steep.add(altitude: 300 + 0.5 * Double(t) + drift, sigma: 5, source: .gps, at: Double(t)) != nil {
                climbed += 1
            }
        }
        #expect(wandered == 0)
        #expect(climbed >= 200, "\(climbed) of the 255 fixes with a full window")
    }
}
