import Foundation
import MoonRunnerCore
import MoonRunnerProtocol
import Testing
@testable import MoonRunnerWeb

/// The run screen's battery: shown while the daemon has a gauge
/// (`STATUS.battery`, protocol 1.9), with the charge and the time it lasts.
@Suite("Web: the battery on the run screen")
struct LiveBatteryTests {
    static func view(_ battery: String?, _ phrases: Phrases = .english) throws -> LiveView {
        var line = #"{"class":"STATUS","state":"recording","hr_state":"none""#
        if let battery { line += #","battery":"# + battery }
        line += "}"
        return LiveView(status: try JSONValue.parse(line), phrases: phrases, units: .metric)
    }

    static func gauge(percent: String = "38.4", minutes: String = "72.4", charging: String = "false") -> String {
        #"{"health":"ok","percent":\#(percent),"volts":3.71,"current_a":0.62,"charging":\#(charging),"#
            + #""minutes_left":\#(minutes),"critical":"5 %","source":"auto","device":"MAX17048 at 0x36 on /dev/i2c-1","#
            + #""readings":40,"jumps":0,"bus_errors":0,"reinitializations":0,"last_error":null}"#
    }

    @Test("hidden without a gauge: STATUS.battery null, or absent (a daemon before 1.9)")
    func hidden() throws {
        let none = try Self.view("null")
        #expect(none.flags["battery"] == false)
        #expect(none.battery.text == "–")
        #expect(none.battery.value == "")
        let older = try Self.view(nil)
        #expect(older.flags["battery"] == false)
    }

    @Test("the charge to the percent and the time it lasts, hours:minutes")
    func draining() throws {
        let v = try Self.view(Self.gauge())
        #expect(v.flags["battery"] == true)
        #expect(v.battery.key == "battery.percent")
        #expect(v.battery.label == "Battery")
        #expect(v.battery.text == "38 % · 1:12", "\(v.battery.text)")
        #expect(v.battery.value == "38.4")
        #expect(v.extras.contains { $0.key == "battery.percent" })
        #expect(v.json.contains(#""battery.percent":["#), "the live stream carries it")
        #expect(v.json.contains(#""battery":true"#), "and its flag")
        let zh = try Self.view(Self.gauge(minutes: "45"), .chinese)
        #expect(zh.battery.label == "电量")
        #expect(zh.battery.text == "38 % · 0:45", "\(zh.battery.text)")
    }

    @Test("charging says so instead of a time; an unknown time or charge is left out")
    func chargingAndUnknown() throws {
        let charging = try Self.view(Self.gauge(percent: "61", minutes: "null", charging: "true"))
        #expect(charging.battery.text == "61 % · charging", "\(charging.battery.text)")
        #expect(charging.battery.value == "61")
        let zh = try Self.view(Self.gauge(percent: "61", minutes: "null", charging: "true"), .chinese)
        #expect(zh.battery.text == "61 % · 充电中", "\(zh.battery.text)")
        let unknown = try Self.view(Self.gauge(minutes: "null", charging: "null"))
        #expect(unknown.battery.text == "38 %", "\(unknown.battery.text)")
        let noCharge = try Self.view(Self.gauge(percent: "null", minutes: "null", charging: "null"))
        #expect(noCharge.flags["battery"] == true, "a gauge not yet read is still a gauge")
        #expect(noCharge.battery.text == "–")
        #expect(noCharge.battery.value == "")
    }

    @Test("battery_low in the phone's event list")
    func eventWords() throws {
        let line = #"{"class":"EVENT","cause":"battery","detail":"20","detected_at":5,"event":"battery_low","session":4,"split":null,"state":"recording","time":5}"#
        let event = try ReplyEncoder.decode(EventReply.self, from: line)
        let words = EventWords.text(event, phrases: .english, units: .metric)
        #expect(words == "Battery 20 %", "\(words)")
    }
}
