import Testing
@testable import MoonRunnerCore

/// The heart rate as the engine follows it, reading by reading, with no session around it.
@Suite("Heart-rate track")
struct HeartRateTrackTests {
    /// Zones from 120, 140, 160 and 180 bpm.
    static func track() -> HeartRateTrack {
        var profile = HeartRateProfile()
        profile.maxBPM = 200
        return HeartRateTrack(profile: profile)
    }

    static func hr(_ t: Double, _ bpm: Int, contact: HeartRateNotification.SensorContact = .detected,
                   rr: [Double] = []) -> HeartRateSample {
        HeartRateSample(t: t, bpm: bpm, contact: contact, rrMilliseconds: rr)
    }

    @Test("a heart rate is current for 5 s after its reading and no longer; a later reading renews it")
    func holdsFiveSeconds() {
        var track = Self.track()
        _ = track.take(Self.hr(10, 150))
        #expect(track.current(at: 14.9) == 150)
        #expect(track.current(at: 15) == nil, "5 s without a notification is missing, never the last value")
        _ = track.take(Self.hr(16, 151))
        #expect(track.current(at: 16) == 151)
    }

    @Test("no skin contact or a value of 0 makes the heart rate missing at once, kept as a NaN reading")
    func missing() throws {
        var track = Self.track()
        _ = track.take(Self.hr(1, 150))
        let noContact = track.take(Self.hr(2, 149, contact: .notDetected))
        let lifted = try #require(noContact)
        #expect(lifted.reading?.time == 2 && lifted.reading?.bpm.isNaN == true)
        #expect(track.current(at: 2) == nil && track.zone(at: 2) == nil)
        _ = track.take(Self.hr(3, 0))
        #expect(track.counters.samples == 1 && track.counters.missing == 2)
    }

    @Test("a heart rate outside 25–250 bpm is refused and counted; R–R intervals outside 200–2500 ms are dropped and counted")
    func implausible() throws {
        var track = Self.track()
        let tooHigh = track.take(Self.hr(1, 251, rr: [150, 800, 3000]))
        let high = try #require(tooHigh)
        #expect(high.reading == nil && high.rrMilliseconds == [800])
        let tooLow = track.take(Self.hr(2, 24))
        let low = try #require(tooLow)
        #expect(low.reading == nil)
        #expect(track.counters.rejected == 2 && track.counters.rrRejected == 2 && track.counters.rrIntervals == 1)
        #expect(track.current(at: 2) == nil)
    }

    @Test("a reading stamped before the newest one is refused as out of order and changes nothing else")
    func outOfOrder() {
        var track = Self.track()
        _ = track.take(Self.hr(2, 141))
        #expect(track.take(Self.hr(1, 139, rr: [500])) == nil)
        #expect(track.counters.outOfOrder == 1 && track.counters.rejected == 1)
        #expect(track.counters.rrIntervals == 0 && track.current(at: 2) == 141)
        #expect(track.take(Self.hr(2, 142)) != nil, "the same time again is in order")
    }

    @Test("the first heart rate sets its zone silently; a crossing is confirmed once, after the 3 s dwell")
    func zoneCrossing() {
        var track = Self.track()
        var crossings: [Double: Int] = [:]
        for t in 0..<10 {
            if let zone = track.take(Self.hr(Double(t), t < 5 ? 130 : 150))?.zone { crossings[Double(t)] = zone }
        }
        #expect(crossings == [8: 3], "130 bpm is zone 2 from the first reading; 150 bpm from 5 s is zone 3 at 8 s")
        #expect(track.zone(at: 9) == 3)
    }

    @Test("a session's figures count only what was recorded since its start; the heart rate itself goes on")
    func sessionFigures() throws {
        var track = Self.track()
        for t in 0..<60 {
            if let r = track.take(Self.hr(Double(t), 150))?.reading { track.record(r, pauses: [], from: 0) }
        }
        track.startSession()
        #expect(track.summary(paused: PausedTime([]), from: 60, to: 120).coveredSeconds == 0)
        #expect(track.current(at: 60) == 150)
        for t in 60..<120 {
            if let r = track.take(Self.hr(Double(t), 160))?.reading { track.record(r, pauses: [], from: 60) }
        }
        let live = track.summary(paused: PausedTime([]), from: 60, to: 120)
        #expect(live.averageBPM == 160 && live.coveredSeconds == 60)
    }

    @Test("a restored session's stored readings give the figures they gave live")
    func restore() {
        var live = Self.track()
        var stored: [HeartRatePoint] = []
        for t in 0..<600 {
            guard let r = live.take(Self.hr(Double(t) / 2, 120 + t % 40))?.reading else { continue }
            stored.append(r)
            live.record(r, pauses: [], from: 0)
        }
        var restored = Self.track()
        restored.restore(stored, at: 300, pauses: [], from: 0)
        let paused = PausedTime([])
        #expect(abs(restored.summary(paused: paused, from: 0, to: 300).heartRateKcal
                    - live.summary(paused: paused, from: 0, to: 300).heartRateKcal) < 1e-9)
    }
}
