import Foundation
import Testing
@testable import MoonRunnerCore
import MoonRunnerTestSupport

@Suite("A slow walker's speed cleared of the velocity's noise")
struct VelocityNoiseTests {
    /// The mean of the noise variance read over `count` fixes of a wearer at 0.4 m/s with `sigma` m/s
    /// of white noise per axis, turning by 120° every `turnEvery` fixes (0: never).
    static func meanVariance(sigma: Double, turnEvery: Int, count: Int = 3000, seed: UInt64 = 11) -> Double {
        var noise = VelocityNoise()
        var rng = GPSTestRandom(seed: seed)
        var heading = 0.0, sum = 0.0, n = 0
        for i in 0..<count {
            if turnEvery > 0 && i % turnEvery == 0 { heading += 2 * .pi / 3 }
            noise.observe(east: 0.4 * sin(heading) + sigma * rng.gaussian(),
                          north: 0.4 * cos(heading) + sigma * rng.gaussian(), at: Double(i))
            if i >= 9 {
                sum += noise.variance
                n += 1
            }
        }
        return sum / Double(n)
    }

    @Test("the noise is read from the velocity's changes between fixes: 0.1 m/s per axis reads 0.1",
          arguments: [0.05, 0.1, 0.2])
    func readsTheNoise(sigma: Double) {
        let v = Self.meanVariance(sigma: sigma, turnEvery: 0)
        // The median of nine is scaled to the mean of an exponential; what is left is its sampling noise.
        #expect(abs(v.squareRoot() - sigma) <= 0.05 * sigma, "read \(v.squareRoot()) m/s")
    }

    @Test("a switchback's turn every minute changes the velocity but not the noise read")
    func turnsAreNotNoise() {
        let straight = Self.meanVariance(sigma: 0.1, turnEvery: 0)
        let turning = Self.meanVariance(sigma: 0.1, turnEvery: 60)
        #expect(abs(turning - straight) <= 0.05 * straight, "\(turning) against \(straight) m²/s² on a straight line")
    }

    @Test("nothing is cleared before nine changes, and fixes more than 1.5 s apart are not compared")
    func needsConsecutiveFixes() {
        var noise = VelocityNoise()
        for i in 0..<9 { noise.observe(east: Double(i % 2) * 0.2, north: 0, at: 2 * Double(i)) }
        #expect(noise.variance == 0, "every fix two seconds from the last")
        for i in 0..<9 { noise.observe(east: Double(i % 2) * 0.2, north: 0, at: 100 + Double(i)) }
        #expect(noise.variance == 0, "eight changes so far")
        noise.observe(east: 0.2, north: 0, at: 109)
        // Nine changes of 0.2 m/s: |Δv|² = 0.04 each, so σ² = 0.04 / (4 × 0.7456).
        #expect(abs(noise.variance - 0.04 / (4 * 0.7456)) < 1e-4, "\(noise.variance)")
        #expect(noise.speed(east: 0.4, north: 0) == (0.16 - noise.variance).squareRoot())
        #expect(noise.speed(east: 0.05, north: 0) == 0, "a speed inside the noise is none")
    }

    @Test("the variance is read from the middle of the last nine changes, whatever their order and ties")
    func medianOfNine() {
        // Changes of |Δv|² 0.01·k² for k in a shuffled order with a tie: the fifth smallest is the median.
        let ks: [Double] = [3, 9, 1, 7, 5, 5, 2, 8, 4]
        let medianOfMean = [9.0, 8, 7, 6, 5].reduce(0.0) { $0 + 1 / $1 }
        var noise = VelocityNoise()
        var east = 0.0
        noise.observe(east: east, north: 0, at: 0)
        for (i, k) in ks.enumerated() {
            let sign: Double = i % 2 == 0 ? 1 : -1
            east += sign * 0.1 * k
            noise.observe(east: east, north: 0, at: Double(i + 1))
        }
        let changes: [Double] = ks.map { 0.01 * $0 * $0 }
        let expected: Double = changes.sorted()[4] / (4 * medianOfMean)
        #expect(abs(noise.variance - expected) < 1e-12, "\(noise.variance) against \(expected)")
        // One more change, the largest yet, drops the oldest (k = 3): the middle moves up to k = 5.
        east += 0.1 * 10
        noise.observe(east: east, north: 0, at: 10)
        var window = Array(changes.dropFirst())
        window.append(1.0)
        let next = window.sorted()[4] / (4 * medianOfMean)
        #expect(abs(noise.variance - next) < 1e-12, "\(noise.variance) against \(next)")
    }

    /// A hiker at `speed` on switchbacks (legs of 50 m, turns of 120°) for `seconds`, with the shared
    /// simulations' receiver noise (0.1 m/s per axis of Doppler).
    static func switchbacks(speed: Double, seconds: Int, seed: UInt64) -> (distance: Double, truth: Double) {
        var rx = SimulatedGPSReceiver(seed: seed)
        rx.speedNoise = 0.1 / 0.7
        var run = GPSFilterRun()
        var east = 0.0, north = 0.0, heading = 0.0, leg = 0.0, side = 1.0
        for i in 0..<(10 + seconds) {
            let moving = i >= 10
            let v = moving ? speed : 0
            if moving {
                east += v * sin(heading)
                north += v * cos(heading)
                leg += v
                if leg >= 50 {
                    leg = 0
                    heading += side * 2 * .pi / 3
                    side = -side
                }
            }
            run.feed(rx.fix(t: Double(i), east: east, north: north, ve: v * sin(heading), vn: v * cos(heading)))
        }
        return (run.distance, speed * Double(seconds))
    }

    @Test("a hiker at 0.4 m/s on switchbacks counts the path within 1 %, not the speed's noise",
          arguments: [21, 22, 23] as [UInt64])
    func slowHikeDistance(seed: UInt64) {
        let (distance, truth) = Self.switchbacks(speed: 0.4, seconds: 2400, seed: seed)
        // Counting the length of the noisy velocity added 2.0–2.7 % on these three (σ²/2v² is 3 % at 0.4 m/s).
        #expect(abs(distance / truth - 1) < 0.01, "distance \(distance) of \(truth) m")
    }
}
