import Foundation
import Testing
@testable import MoonRunnerCore

@Suite("Stats: laps")
struct StatsLapsTests {
    func lapEvent(_ t: Double) -> SessionEvent {
        SessionEvent(kind: .lap, time: StatsTrack.t0 + t, detectedAt: StatsTrack.t0 + t, cause: "command",
                     state: .recording)
    }

    /// Steps at 3 per second (180 spm) over the given seconds.
    func steps(_ range: ClosedRange<Int>) -> [StepSecondSample] {
        range.map { StepSecondSample(second: Int64(StatsTrack.t0) + Int64($0), steps: 3, cadence: 180) }
    }

    @Test("laps split at lap events; distance, time and steps add up")
    func lapsAddUp() throws {
        var points = StatsTrack.line(from: 0, to: 500, speed: 3)
        points += StatsTrack.line(from: 620, to: 1000, speed: 3, offset: 1500, newSegmentAtStart: true)
        let laps = Laps.compute(points: points, events: [lapEvent(300), lapEvent(700)],
                                pauses: [StatsTrack.pause(500, 620)],
                                stepSeconds: steps(0...499) + steps(620...999),
                                start: StatsTrack.t0, end: StatsTrack.t0 + 1000)
        #expect(laps.count == 3)
        #expect(laps.map(\.trigger) == [.manual, .manual, .sessionEnd])
        #expect(abs(laps[0].distance - 900) < 1e-6)
        #expect(abs(laps[1].distance - (600 + 240)) < 1e-6)  // 300..500 and 620..700
        #expect(abs(laps.map(\.distance).reduce(0, +) - TrackDistance(points: points).total) < 1e-6)
        #expect(laps[1].elapsed == 400 && laps[1].moving == 280)
        #expect(abs(laps[1].averageSpeed - 3) < 1e-9)
        #expect(laps.map(\.steps) == [900, 840, 900])
        #expect(abs(laps[0].averageCadence - 180) < 1e-9)
        #expect(laps[0].points == 0..<300 && laps[2].points.upperBound == points.count)
        #expect(laps.allSatisfy { abs($0.maxSpeed - 3) < 1e-9 })
    }

    @Test("without lap events there is one lap for the whole session")
    func singleLap() throws {
        let points = StatsTrack.line(from: 0, to: 100, speed: 2)
        let lap = try #require(Laps.compute(points: points, events: [], pauses: [], stepSeconds: [],
                                            start: StatsTrack.t0, end: StatsTrack.t0 + 100).first)
        #expect(lap.number == 1 && abs(lap.distance - 200) < 1e-6 && lap.points == 0..<101 && lap.steps == 0)
    }

    @Test("lap events outside the session or repeated are ignored")
    func strayEvents() {
        let points = StatsTrack.line(from: 0, to: 100, speed: 2)
        let laps = Laps.compute(points: points, events: [lapEvent(-5), lapEvent(50), lapEvent(50), lapEvent(100)],
                                pauses: [], stepSeconds: [], start: StatsTrack.t0, end: StatsTrack.t0 + 100)
        #expect(laps.count == 2)
    }

    @Test("a boundary less than a second before the end makes no lap: the stop pressed as the workout ended")
    func noTrailingEmptyLap() {
        let points = StatsTrack.line(from: 0, to: 100, speed: 2)
        let done = SessionEvent(kind: .workoutDone, time: StatsTrack.t0 + 99.6, detectedAt: StatsTrack.t0 + 99.6,
                                cause: "time", state: .recording)
        let laps = Laps.compute(points: points, events: [lapEvent(50), done], pauses: [], stepSeconds: [],
                                start: StatsTrack.t0, end: StatsTrack.t0 + 100)
        #expect(laps.map(\.elapsed) == [50, 50])
        let later = Laps.compute(points: points, events: [lapEvent(50), lapEvent(98.5)], pauses: [], stepSeconds: [],
                                 start: StatsTrack.t0, end: StatsTrack.t0 + 100)
        #expect(later.map(\.elapsed) == [50, 48.5, 1.5])
    }
}
