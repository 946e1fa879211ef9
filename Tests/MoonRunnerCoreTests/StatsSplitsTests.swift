import Foundation
import Testing
@testable import MoonRunnerCore

@Suite("Stats: track distance, paused time and splits")
struct StatsSplitsTests {
    @Test("distance counts only inside stretches; the jump to a new stretch adds nothing")
    func trackDistance() {
        var points = StatsTrack.line(from: 0, to: 100, speed: 2)            // 200 m
        points += StatsTrack.line(from: 160, to: 260, speed: 2, offset: 500,  // jumped 300 m while paused
                                  newSegmentAtStart: true)                    // +200 m
        let track = TrackDistance(points: points)
        #expect(abs(track.total - 400) < 0.01)
        #expect(track.startsStretch(0) && track.startsStretch(101) && !track.startsStretch(50))
        // Interpolated between fixes, flat across the break.
        #expect(abs(track.distance(at: StatsTrack.t0 + 50.5) - 101) < 0.01)
        #expect(abs(track.distance(at: StatsTrack.t0 + 130) - 200) < 0.01)
        #expect(track.distance(at: StatsTrack.t0 - 5) == 0)
        #expect(abs(track.distance(at: StatsTrack.t0 + 1000) - 400) < 0.01)
    }

    @Test("paused time is the overlap of a window with the pauses, open pauses run on")
    func pausedTime() {
        let paused = PausedTime([StatsTrack.pause(10, 20), StatsTrack.pause(50, 55),
                                 PauseInterval(start: StatsTrack.t0 + 90, end: .nan, detectedAt: StatsTrack.t0 + 90,
                                               automatic: false)])
        let t = StatsTrack.t0
        #expect(paused.paused(from: t, to: t + 100) == 10 + 5 + 10)
        #expect(paused.moving(from: t + 15, to: t + 52) == 37 - 5 - 2)
        #expect(paused.moving(from: t + 20, to: t + 50) == 30)
        #expect(paused.isPaused(at: t + 12) && !paused.isPaused(at: t + 20) && paused.isPaused(at: t + 1e6))
        #expect(paused.moving(from: t + 5, to: t + 5) == 0)
    }

    @Test("km splits at constant speed end where the distance says, partial split last")
    func kilometreSplits() throws {
        let speed = 2.5
        let points = StatsTrack.line(from: 0, to: 2200, speed: speed, climb: 0.01)  // 5500 m, 1 % climb
        let splits = Splits.compute(points: points, pauses: [], units: .metric, start: StatsTrack.t0)
        #expect(splits.count == 6)
        for s in splits.prefix(5) {
            #expect(!s.isPartial)
            #expect(abs(s.distance - 1000) < 1e-6)
            #expect(abs(s.elapsed - 400) < 1e-6)
            #expect(abs(s.moving - 400) < 1e-6)
            #expect(abs(s.pace - 400) < 1e-6)
            #expect(abs(s.elevationChange - 10) < 1e-6)
        }
        let last = try #require(splits.last)
        #expect(last.isPartial && abs(last.distance - 500) < 1e-6 && abs(last.elapsed - 200) < 1e-6)
        #expect(abs(last.cumulativeDistance - 5500) < 1e-6)
        // Split 3 ends where 3000 m is reached: t0 + 1200 s.
        #expect(abs(splits[2].endTime - (StatsTrack.t0 + 1200)) < 1e-6)
    }

    @Test("the split instant is interpolated between fixes, not snapped to one")
    func interpolatedInstant() throws {
        // 3 m/s: the 1000 m mark falls a third of the way between the fixes at 333 and 334 s.
        let points = StatsTrack.line(from: 0, to: 400, speed: 3)
        let first = try #require(Splits.compute(points: points, pauses: [], units: .metric).first)
        #expect(abs(first.endTime - (StatsTrack.t0 + 1000.0 / 3)) < 1e-6)
    }

    @Test("a pause inside a split counts in elapsed, not in moving time or pace")
    func pauseInsideSplit() throws {
        var points = StatsTrack.line(from: 0, to: 300, speed: 2.5)        // 750 m
        points += StatsTrack.line(from: 420, to: 1000, speed: 2.5, offset: 750, newSegmentAtStart: true)
        let splits = Splits.compute(points: points, pauses: [StatsTrack.pause(300, 420)], units: .metric)
        let first = try #require(splits.first)
        #expect(abs(first.elapsed - 520) < 1e-6)
        #expect(abs(first.moving - 400) < 1e-6)
        #expect(abs(first.pace - 400) < 1e-6)
        #expect(abs(splits[1].moving - 400) < 1e-6)
    }

    @Test("mile splits use 1609.344 m")
    func mileSplits() {
        let points = StatsTrack.line(from: 0, to: 2000, speed: 2.5)       // 5000 m
        let splits = Splits.compute(points: points, pauses: [], units: .imperial)
        #expect(splits.count == 4)
        #expect(splits.filter { !$0.isPartial }.count == 3)
        #expect(abs(splits[0].elapsed - 1609.344 / 2.5) < 1e-6)
        #expect(abs(splits[3].distance - (5000 - 3 * 1609.344)) < 1e-6)
    }

    @Test("no points, no splits; unknown altitude gives NaN elevation change")
    func degenerate() {
        #expect(Splits.compute(points: [], pauses: [], units: .metric).isEmpty)
        var points = StatsTrack.line(from: 0, to: 500, speed: 2.5)
        for i in points.indices { points[i].altitude = .nan }
        let splits = Splits.compute(points: points, pauses: [], units: .metric)
        #expect(splits.count == 2 && splits[0].elevationChange.isNaN)
    }
}
