import Foundation
import MoonRunnerCore
import MoonRunnerProtocol
import Testing
@testable import MoonRunnerAnnounceCore

@Suite("Announcer: the course's cues")
struct CueAnnouncementTests {
    static func said(_ kind: SessionEventKind, _ cue: CueEvent, language: Language = .english,
                     units: UnitSystem = .metric) throws -> [String] {
        var f = Feed(language: language)
        _ = try f.line(Lines.status(time: 1, units: units))
        return try f.line(Lines.cue(kind, time: 2, cue))
    }

    @Test("a turn ahead: its distance rounded to 10 m, the turn, the street it leads onto; in English and Mandarin")
    func ahead() throws {
        let elm = CueEvent(kind: .left, name: "Elm Street", courseM: 1200, distanceM: 98.6)
        #expect(try Self.said(.turnAhead, elm) == ["In 100 metres, turn left onto Elm Street."])
        #expect(try Self.said(.turnAhead, CueEvent(kind: .left, name: "榆树街", courseM: 1200, distanceM: 98.6),
                              language: .chinese) == ["前方一百米左转，进入榆树街。"])
        #expect(try Self.said(.turnAhead, CueEvent(kind: .slightRight, name: nil, courseM: 800, distanceM: 64))
            == ["In 60 metres, bear right."])
        #expect(try Self.said(.turnAhead, CueEvent(kind: .uTurn, name: nil, courseM: 800, distanceM: 31), language: .chinese)
            == ["前方三十米掉头。"])
        #expect(try Self.said(.turnAhead, CueEvent(kind: .sharpLeft, name: nil, courseM: 800, distanceM: 64), units: .imperial)
            == ["In 70 yards, turn sharp left."])
    }

    @Test("two turns close together are said as one: \"turn left, then right\"")
    func then() throws {
        let both = CueEvent(kind: .left, name: nil, courseM: 500, distanceM: 62, then: [.right])
        #expect(try Self.said(.turnAhead, both) == ["In 60 metres, turn left, then right."])
        #expect(try Self.said(.turnAhead, both, language: .chinese) == ["前方六十米左转，然后右转。"])
    }

    @Test("at the turn: the turn alone, short")
    func now() throws {
        let elm = CueEvent(kind: .left, name: "Elm Street", courseM: 1200, distanceM: 7, then: [.right])
        #expect(try Self.said(.turnNow, elm) == ["Turn left now."])
        #expect(try Self.said(.turnNow, elm, language: .chinese) == ["现在左转。"])
        #expect(try Self.said(.turnNow, CueEvent(kind: .straight, name: nil, courseM: 1, distanceM: 7))
            == ["Go straight on now."])
    }

    @Test("a point of interest ahead: the place, and its name when the file gives one")
    func places() throws {
        #expect(try Self.said(.turnAhead, CueEvent(kind: .water, name: nil, courseM: 900, distanceM: 201))
            == ["In 200 metres, water."])
        #expect(try Self.said(.turnAhead, CueEvent(kind: .water, name: "Fountain Square", courseM: 900, distanceM: 201))
            == ["In 200 metres, water: Fountain Square."])
        #expect(try Self.said(.turnAhead, CueEvent(kind: .summit, name: nil, courseM: 900, distanceM: 35), language: .chinese)
            == ["前方四十米，山顶。"])
        #expect(try Self.said(.turnAhead, CueEvent(kind: .generic, name: "Café Ré", courseM: 900, distanceM: 50))
            == ["In 50 metres, Café Ré."])
        #expect(try Self.said(.turnAhead, CueEvent(kind: .category2, name: nil, courseM: 900, distanceM: 1500))
            == ["In 1.5 kilometres, a category 2 climb."])
    }

    @Test("announce.turns off: no cue is said, everything else is")
    func switchedOff() throws {
        var settings = AnnounceSettings()
        settings.turns = false
        var f = Feed(settings)
        _ = try f.line(Lines.status(time: 1))
        #expect(try f.line(Lines.cue(.turnAhead, time: 2, CueEvent(kind: .left, name: nil, courseM: 5, distanceM: 60))).isEmpty)
        #expect(try f.line(Lines.event("course_to_go", time: 3, cause: "course", detail: "500")) == ["500 metres to go."])
    }
}
