import Testing
@testable import MoonRunnerAnnounceCore

@Suite("Announcer: heart rate")
struct HeartRateAnnouncementTests {
    @Test("the strap connecting and being lost is said at once, in English and in Mandarin")
    func link() throws {
        var f = Feed()
        #expect(try f.line(Lines.event("hr_connected", time: 10, cause: "heart_rate", detail: "Polar H10 (A0:9E:1A:8C:1A:2B)"))
            == ["Heart rate connected."])
        #expect(try f.line(Lines.event("hr_lost", time: 11, cause: "heart_rate", detail: "the strap disconnected"))
            == ["Heart rate lost."])
        var zh = Feed(language: .chinese)
        #expect(try zh.line(Lines.event("hr_connected", time: 10, cause: "heart_rate")) == ["心率已连接。"])
        #expect(try zh.line(Lines.event("hr_lost", time: 11, cause: "heart_rate")) == ["心率信号丢失。"])
    }

    @Test("a new zone waits for the STATUS after it and says its heart rate: 'Heart rate 152, zone 4.'")
    func zone() throws {
        var f = Feed()
        _ = try f.line(Lines.status(time: 9, hrBpm: 149))
        #expect(try f.line(Lines.event("hr_zone", time: 10, cause: "heart_rate", detail: "4")).isEmpty)
        #expect(try f.line(Lines.status(time: 10.5, hrBpm: 152)) == ["Heart rate 152, zone 4."])
        var zh = Feed(language: .chinese)
        _ = try zh.line(Lines.event("hr_zone", time: 10, cause: "heart_rate", detail: "4"))
        #expect(try zh.line(Lines.status(time: 10.5, hrBpm: 152)) == ["心率一百五十二，四区。"])
        // Without a heart rate in that STATUS only the zone is said, after the wait.
        var g = Feed()
        _ = try g.line(Lines.event("hr_zone", time: 10, cause: "heart_rate", detail: "2"))
        #expect(try g.line(Lines.status(time: 10.5)) == ["Zone 2."])
    }

    @Test("announce.heart_rate: false silences all three")
    func switchOff() throws {
        var s = AnnounceSettings()
        s.heartRate = false
        var f = Feed(s)
        for e in ["hr_connected", "hr_lost"] { #expect(try f.line(Lines.event(e, time: 1, cause: "heart_rate")).isEmpty) }
        _ = try f.line(Lines.event("hr_zone", time: 1, cause: "heart_rate", detail: "3"))
        #expect(try f.line(Lines.status(time: 2, hrBpm: 150)).isEmpty)
    }
}
