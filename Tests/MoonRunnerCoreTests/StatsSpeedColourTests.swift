import Foundation
import Testing
@testable import MoonRunnerCore

@Suite("Stats: speed colours")
struct StatsSpeedColourTests {
    @Test("red at the slow end, yellow in the middle, green at the fast end, clamped outside")
    func anchors() {
        let scale = SpeedColourScale(slow: 2, fast: 4)
        #expect(scale.colour(for: 2) == RGBColour.slow)
        #expect(scale.colour(for: 3) == RGBColour.middle)
        #expect(scale.colour(for: 4) == RGBColour.fast)
        #expect(scale.colour(for: 0.5) == RGBColour.slow)
        #expect(scale.colour(for: 9) == RGBColour.fast)
        #expect(RGBColour.slow.hex == "#ff142c" && RGBColour.fast.hex == "#00924e")
        #expect(RGBColour(red: 1, green: 171, blue: 255).hex == "#01abff")
    }

    @Test("colours move monotonically from red through yellow to green as speed rises")
    func monotonic() {
        let scale = SpeedColourScale(slow: 2, fast: 4)
        let lower = stride(from: 2.0, through: 3.0, by: 0.02).map { scale.colour(for: $0) }
        let upper = stride(from: 3.0, through: 4.0, by: 0.02).map { scale.colour(for: $0) }
        // Red → yellow: full red, green rising, blue falling.
        for (a, b) in zip(lower, lower.dropFirst()) {
            #expect(b.red == 255 && b.green >= a.green && b.blue <= a.blue)
        }
        // Yellow → green: red falling, blue rising.
        for (a, b) in zip(upper, upper.dropFirst()) {
            #expect(b.red <= a.red && b.blue >= a.blue)
        }
        #expect(Set(lower + upper).count > 60)
    }

    @Test("the range comes from percentiles, so one GPS spike does not wash out the route")
    func robustRange() {
        var speeds = (0..<1000).map { 2.5 + Double($0 % 100) / 100 }   // 2.5 ... 3.49 m/s
        speeds.append(92)                                              // a teleport
        speeds.append(.nan)
        let scale = SpeedColourScale(speeds: speeds)
        #expect(scale.slow > 2.5 && scale.slow < 2.6)
        #expect(scale.fast > 3.4 && scale.fast < 3.5)
        // A typical speed is mid-range, not the red the seed's min/max rule would make it.
        #expect(abs(scale.fraction(for: 3.0) - 0.5) < 0.1)
        #expect(SpeedColourScale(speeds: []).fraction(for: 3) == 0.5)
    }

    @Test("percentile interpolates linearly")
    func percentile() {
        #expect(SpeedColourScale.percentile([1, 2, 3, 4, 5], 0.5) == 3)
        #expect(SpeedColourScale.percentile([0, 10], 0.25) == 2.5)
        #expect(SpeedColourScale.percentile([7], 0.9) == 7)
    }

    @Test("segment speeds: none into a new stretch, distance over time without filter speeds")
    func segmentSpeeds() {
        var points = StatsTrack.line(from: 0, to: 10, speed: 3)
        points += StatsTrack.line(from: 20, to: 30, speed: 3, offset: 100, newSegmentAtStart: true)
        let speeds = SpeedColourScale.segmentSpeeds(of: points)
        #expect(speeds[0].isNaN && speeds[11].isNaN)
        #expect(abs(speeds[5] - 3) < 1e-9)
        var raw = points
        for i in raw.indices { raw[i].speed = .nan }
        #expect(abs(SpeedColourScale.segmentSpeeds(of: raw)[5] - 3) < 1e-6)
    }
}
