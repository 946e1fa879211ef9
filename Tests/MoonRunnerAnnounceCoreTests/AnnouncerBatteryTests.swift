import Foundation
import MoonRunnerConfig
import MoonRunnerCore
import MoonRunnerProtocol
import Testing
@testable import MoonRunnerAnnounceCore

/// The battery's announcements: `battery_low` with the time left from the
/// latest `STATUS.battery`, and the stop a flat battery forced.
@Suite("Announcer: the battery")
struct AnnouncerBatteryTests {
    /// A STATUS as the daemon writes it, with its `battery` object (null when `percent` is nil).
    static func status(time: Double, state: SessionState = .recording, percent: Double?, minutesLeft: Double? = nil,
                       distance: Double = 0, moving: Double = 0, elapsed: Double? = nil) -> String {
        var stats = SessionStats()
        stats.activity = .run
        stats.distance = distance
        stats.moving = moving
        stats.elapsed = elapsed ?? moving
        let battery = percent.map {
            BatteryStatusReply(health: .ok, percent: $0, volts: 3.6, charging: false, minutesLeft: minutesLeft,
                               critical: "5 %", source: "auto (power_supply:/sys/class/power_supply/BAT0)",
                               device: "power_supply BAT0", readings: 100)
        }
        let reply = StatusReply(time: time, state: state, session: 4, stats: stats,
                                gps: GPSStatus(health: .ok, grade: .best, fixes: 10, connects: 1),
                                imu: IMUStatus(health: .ok, samples: 100, rejected: 0, busErrors: 0, overflows: 0),
                                store: StoreStatus(health: .ok, pending: 0, lastError: nil), lastTransition: nil,
                                units: .metric, quiet: false, battery: battery)
        return ReplyEncoder.line(reply)
    }

    static func low(_ percent: String, time: Double = 20) -> String {
        Lines.event("battery_low", time: time, cause: "battery", detail: percent)
    }

    @Test("battery_low says the charge and the minutes left from the latest STATUS")
    func withMinutes() throws {
        var f = Feed()
        _ = try f.line(Self.status(time: 10, percent: 20.4, minutesLeft: 39.6))
        #expect(try f.line(Self.low("20")) == ["Battery 20 percent, about 40 minutes left."])
        var zh = Feed(language: .chinese)
        _ = try zh.line(Self.status(time: 10, percent: 20.4, minutesLeft: 39.6))
        #expect(try zh.line(Self.low("20")) == ["电量百分之二十，大约还能用四十分钟。"])
    }

    @Test("the minutes are the latest STATUS's: a later STATUS changes them")
    func latestStatus() throws {
        var f = Feed()
        _ = try f.line(Self.status(time: 10, percent: 25, minutesLeft: 90))
        _ = try f.line(Self.status(time: 15, percent: 10.2, minutesLeft: 20.2))
        #expect(try f.line(Self.low("10")) == ["Battery 10 percent, about 20 minutes left."])
    }

    @Test("without minutes left (unknown, under a minute, no STATUS.battery) the charge alone is said")
    func withoutMinutes() throws {
        var unknown = Feed()
        _ = try unknown.line(Self.status(time: 10, percent: 20, minutesLeft: nil))
        #expect(try unknown.line(Self.low("20")) == ["Battery 20 percent."])
        var underAMinute = Feed()
        _ = try underAMinute.line(Self.status(time: 10, percent: 20, minutesLeft: 0.4))
        #expect(try underAMinute.line(Self.low("20")) == ["Battery 20 percent."])
        var noGauge = Feed()
        _ = try noGauge.line(Self.status(time: 10, percent: nil))
        #expect(try noGauge.line(Self.low("20")) == ["Battery 20 percent."])
        var noStatus = Feed()
        #expect(try noStatus.line(Self.low("10")) == ["Battery 10 percent."])
        var zh = Feed(language: .chinese)
        #expect(try zh.line(Self.low("10")) == ["电量百分之十。"])
        var nothing = Feed()
        #expect(try nothing.line(Lines.event("battery_low", time: 20, cause: "battery")).isEmpty, "no charge, nothing to say")
    }

    @Test("announce.battery: false silences battery_low, and only it")
    func silenced() throws {
        var settings = AnnounceSettings()
        settings.battery = false
        var f = Feed(settings)
        _ = try f.line(Self.status(time: 10, percent: 20, minutesLeft: 40))
        #expect(try f.line(Self.low("20")).isEmpty)
        #expect(try f.line(Lines.event("lap", time: 21, detail: "2")) == ["Lap 2."])
        let silenced = SessionEventKind.allCases.filter {
            Announcer(settings: AnnounceSettings()).enabled($0) && !Announcer(settings: settings).enabled($0)
        }
        #expect(silenced == [.batteryLow])
        let read = try AnnounceConfigReader.read(["announce": ["battery": false]] as [String: Any])
        #expect(read.battery == false)
        #expect(throws: ConfigError.self) { _ = try AnnounceConfigReader.read(["announce": ["battery": "no"]] as [String: Any]) }
        #expect(AnnounceSettings().battery == true)
    }

    static let summary = "Run finished. 3.93 kilometres in 20 minutes 10. Average pace 5 oh 8 per kilometre."

    @Test("a stop with cause battery says why before the summary; a stop by command does not")
    func batteryStop() throws {
        var f = Feed()
        _ = try f.line(Self.status(time: 1000, percent: 5, distance: 3800, moving: 1190))
        #expect(try f.line(Lines.event("stop", time: 1005, cause: "battery")).isEmpty)
        let said = try f.line(Self.status(time: 1006, state: .stopped, percent: 4.9, distance: 3931, moving: 1210, elapsed: 1300))
        #expect(said == ["Battery critical: the session is stopped and saved. " + Self.summary])

        var command = Feed()
        _ = try command.line(Self.status(time: 1000, percent: 5, distance: 3800, moving: 1190))
        _ = try command.line(Lines.event("stop", time: 1005, cause: "command"))
        let plain = try command.line(Self.status(time: 1006, state: .stopped, percent: 4.9, distance: 3931, moving: 1210,
                                                  elapsed: 1300))
        #expect(plain == [Self.summary])

        var zh = Feed(language: .chinese)
        _ = try zh.line(Self.status(time: 1000, percent: 5, distance: 2000, moving: 600))
        _ = try zh.line(Lines.event("stop", time: 1005, cause: "battery"))
        let chinese = try zh.line(Self.status(time: 1006, state: .stopped, percent: 4.9, distance: 2000, moving: 600))
        let first = try #require(chinese.first)
        #expect(first.hasPrefix("电量严重不足，本次记录已停止并保存。"), "\(first)")
        #expect(first.contains("跑步结束。"), "\(first)")
    }
}
