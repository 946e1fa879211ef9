import MoonRunnerCore
import MoonRunnerTestSupport
import Testing
@testable import MoonRunnerAnnounceCore

@Suite("Wording: numbers as people say them")
struct WordingTests {
    let en = EnglishWording()
    let zh = MandarinWording()

    @Test("English durations, paces and distances")
    func english() {
        #expect(en.duration(312) == "5 minutes 12")
        #expect(en.duration(300) == "5 minutes")
        #expect(en.duration(61) == "1 minute 1")
        #expect(en.duration(45.4) == "45 seconds")
        #expect(en.duration(3725) == "1 hour 2 minutes")
        #expect(en.duration(7200) == "2 hours")
        #expect(en.pace(312) == "5 12")
        #expect(en.pace(305) == "5 oh 5")
        #expect(en.pace(299.6) == "5 minutes")
        #expect(en.pace(3725) == "62 oh 5")
        #expect(en.units(1, .metric) == "1 kilometre" && en.units(3, .metric) == "3 kilometres")
        #expect(en.units(2, .imperial) == "2 miles")
        #expect(en.distance(3931, .metric) == "3.93 kilometres")
        #expect(en.distance(1000.4, .metric) == "1 kilometre")
        #expect(en.distance(12_345, .metric) == "12.3 kilometres")
        #expect(en.distance(1609.344 * 2.5, .imperial) == "2.5 miles")
        #expect(en.nearDistance(500, .metric) == "500 metres")
        #expect(en.nearDistance(1000, .metric) == "1 kilometre")
        #expect(en.nearDistance(457.2, .imperial) == "500 yards")
        #expect(en.nearDistance(1609.344, .imperial) == "1 mile")
    }

    @Test("compass points for bearings, either side of north")
    func directions() {
        #expect(en.direction(0) == "north" && en.direction(359) == "north")
        #expect(en.direction(44) == "north-east" && en.direction(91) == "east" && en.direction(225) == "south-west")
        #expect(en.direction(-90) == "west")
        #expect(zh.direction(45) == "东北" && zh.direction(180) == "南")
    }

    @Test("Mandarin numerals read back to the number, 0 to 120,000")
    func mandarinNumbers() {
        #expect(zh.number(10) == "十" && zh.number(12) == "十二" && zh.number(20) == "二十")
        #expect(zh.number(105) == "一百零五" && zh.number(110) == "一百一十" && zh.number(1010) == "一千零一十")
        #expect(zh.number(20_000) == "两万" && zh.number(10_005) == "一万零五" && zh.number(50_016) == "五万零一十六")
        #expect(zh.quantity(2) == "两" && zh.quantity(12) == "十二")
        for n in Array(0...2000) + Array(stride(from: 2001, through: 120_000, by: 97)) {
            #expect(HanziNumber.parse(zh.number(n)) == n, "\(n) → \(zh.number(n))")
        }
    }

    @Test("Mandarin durations, paces and distances")
    func mandarin() {
        #expect(zh.duration(312) == "五分十二秒")
        #expect(zh.duration(120) == "两分钟")
        #expect(zh.duration(45) == "四十五秒")
        #expect(zh.duration(3725) == "一小时二分钟")
        #expect(zh.pace(305) == "五分五秒")
        #expect(zh.units(2, .metric) == "两公里" && zh.units(1, .imperial) == "一英里")
        #expect(zh.distance(3931, .metric) == "三点九三公里")
        #expect(zh.distance(2000, .metric) == "两公里")
        #expect(zh.distance(2500, .metric) == "二点五公里")
        #expect(zh.nearDistance(500, .metric) == "五百米")
        #expect(zh.nearDistance(200, .metric) == "两百米")
        for metres in stride(from: 10.0, through: 60_000, by: 733) {
            let text = zh.distance(metres, .metric)
            let value = HanziNumber.decimal(String(text.dropLast(2)))
            #expect(value.map { abs($0 - metres / 1000) < 0.051 } == true, "\(metres) → \(text)")
        }
    }
}
