import Foundation
import Testing
@testable import MoonRunnerCore

@Suite("Split tracker: live splits, point by point")
struct SplitTrackerTests {
    /// A wandering track at changing speeds, with a stretch break and pauses.
    static func track() -> (points: [TrackPoint], pauses: [PauseInterval]) {
        var points: [TrackPoint] = []
        var north = 0.0
        for k in 0..<1500 {
            let speed = 2.5 + 1.5 * sin(Double(k) / 97)
            north += k == 800 ? 250 : speed   // a jump while paused: a new stretch
            points.append(StatsTrack.point(t: Double(k), north: north, altitude: 100 + 10 * sin(Double(k) / 50),
                                           newSegment: k == 800))
        }
        return (points, [StatsTrack.pause(300, 340), StatsTrack.pause(700, 800, automatic: false)])
    }

    @Test("fed point by point it finds the splits compute lists, each when its mark is crossed")
    func liveEqualsStored() throws {
        let (points, pauses) = Self.track()
        let stored = Splits.compute(points: points, pauses: pauses, units: .metric, start: StatsTrack.t0 - 5)
        #expect(stored.filter { !$0.isPartial }.count >= 3)
        var tracker = SplitTracker(units: .metric, start: StatsTrack.t0 - 5)
        let paused = PausedTime(pauses)
        var live: [Split] = []
        for p in points {
            var found: [Split] = []
            tracker.add(p, paused: paused) { found.append($0) }
            for s in found {
                // Found by the point that crosses it: ends within the last second, before this point.
                #expect(s.endTime <= p.time && s.endTime > p.time - 1.0001, "split \(s.number) at \(s.endTime), point \(p.time)")
            }
            live += found
        }
        if let last = tracker.partial(paused: paused) { live.append(last) }
        #expect(live == stored)
    }

    @Test("a pause the session opened with (standing at the start, auto-paused) is in no split: the first split's time and pace agree")
    func startingPause() throws {
        // Started at t0, stood auto-paused 27 s, then 1000 m at 4.18 m/s (3:59 a km).
        let points = StatsTrack.line(from: 27, to: 300, speed: 1000 / 239)
        let pauses = [StatsTrack.pause(0, 27)]
        let split = try #require(Splits.compute(points: points, pauses: pauses, units: .metric, start: StatsTrack.t0).first)
        #expect(abs(split.elapsed - 239) < 1e-6 && abs(split.moving - 239) < 1e-6, "\(split.elapsed) s, \(split.moving) s")
        #expect(split.startTime == StatsTrack.t0 + 27)
        // A pause later in the split still counts in its clock time (the wearer stopped in that km).
        let later = Splits.compute(points: points, pauses: pauses + [StatsTrack.pause(100, 110)], units: .metric,
                                   start: StatsTrack.t0)
        #expect(abs((later.first?.elapsed ?? 0) - 239) < 1e-6 && abs((later.first?.moving ?? 0) - 229) < 1e-6)
    }

    @Test("points that carry the session's distance are split on it, not on their geometry")
    func carriedDistance() throws {
        // The session counted 90 % of the geometric length (say, drift taken out).
        var points = StatsTrack.line(from: 0, to: 1000, speed: 3)
        for i in points.indices { points[i].distance = 2.7 * Double(i) + 5 }
        let stored = Splits.compute(points: points, pauses: [], units: .metric)
        var tracker = SplitTracker(units: .metric)
        var live: [Split] = []
        for p in points { tracker.add(p, paused: PausedTime([])) { live.append($0) } }
        #expect(live == stored.filter { !$0.isPartial })
        #expect(live.count == 2)
        // 1000 m of carried distance from 5 m at 2.7 m/s.
        #expect(abs(live[0].endTime - StatsTrack.t0 - 995 / 2.7) < 1e-6)
        #expect(abs(tracker.total - 2705) < 1e-6)
    }

    @Test("imperial splits are per mile; a partial split is only the rest")
    func imperialAndPartial() throws {
        let points = StatsTrack.line(from: 0, to: 1000, speed: 4)     // 4000 m
        var tracker = SplitTracker(units: .imperial)
        var splits: [Split] = []
        for p in points { tracker.add(p, paused: PausedTime([])) { splits.append($0) } }
        #expect(splits.count == 2)
        #expect(splits.allSatisfy { abs($0.distance - 1609.344) < 1e-6 })
        // 1609.344 m at 4 m/s.
        #expect(abs(splits[0].moving - 402.336) < 0.01)
        let rest = try #require(tracker.partial(paused: PausedTime([])))
        #expect(rest.isPartial && abs(rest.distance - (4000 - 2 * 1609.344)) < 0.01)
        #expect(tracker.count == 2)
    }

    @Test("a pause known when the mark is crossed is left out of the split's moving time")
    func movingTime() throws {
        let points = StatsTrack.line(from: 0, to: 400, speed: 3)
        var tracker = SplitTracker(units: .metric, start: StatsTrack.t0)
        var first: Split?
        for p in points { tracker.add(p, paused: PausedTime([StatsTrack.pause(100, 160)])) { first = first ?? $0 } }
        let split = try #require(first)
        #expect(abs(split.elapsed - 1000 / 3) < 0.01)
        #expect(abs(split.moving - (1000 / 3 - 60)) < 0.01)
    }
}

@Suite("GPS loss watch")
struct GPSLossWatchTests {
    @Test("lost after fixes, regained after a loss; nothing outside a session or before the first fix")
    func edges() {
        var w = GPSLossWatch()
        #expect(w.update(hasFix: false, sessionActive: true) == nil)    // session started before the first fix
        #expect(w.update(hasFix: true, sessionActive: true) == nil)     // the first fix is no "regained"
        #expect(w.update(hasFix: true, sessionActive: true) == nil)
        #expect(w.update(hasFix: false, sessionActive: true) == .gpsLost)
        #expect(w.update(hasFix: false, sessionActive: true) == nil)
        #expect(w.update(hasFix: true, sessionActive: true) == .gpsRegained)
        #expect(w.update(hasFix: false, sessionActive: false) == nil)   // stopped: forgets
        #expect(w.update(hasFix: false, sessionActive: true) == nil)
        #expect(w.update(hasFix: true, sessionActive: true) == nil)
    }
}
