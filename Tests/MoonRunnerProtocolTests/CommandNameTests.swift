import Testing
@testable import MoonRunnerProtocol

/// Requests written out by name, with parameters that hold.
enum RequestLines {
    /// A valid value (as JSON) of every parameter a request takes besides "id".
    static let examples: [CommandName: [String: String]] = [
        .watch: ["enable": "false"],
        .start: ["activity": #""walk""#, "course": "3", "to": "[51.5007,-0.1246]", "workout": "2"],
        .sessions: ["limit": "5", "before": "40"],
        .export: ["format": #""gpx""#, "privacy": "[[51.5007,-0.1246,300]]"],
        .courseAdd: ["name": #""Loop""#, "format": #""gpx""#, "encoding": #""utf8""#, "bytes": "10", "chunks": "1"],
        .courseData: ["seq": "0", "data": #""<gpx>""#],
        .announce: ["quiet": "true"],
        .workoutAdd: ["name": #""Tuesday""#, "format": #""text""#, "encoding": #""utf8""#, "bytes": "8", "chunks": "1"],
        .workoutData: ["seq": "0", "data": #""15m easy""#],
    ]

    /// The parameters a request cannot do without.
    static let needed: [CommandName: [String]] = [
        .session: ["id"], .delete: ["id"], .course: ["id"], .courseDelete: ["id"], .export: ["id", "format"],
        .courseAdd: ["bytes", "chunks"], .courseData: ["seq", "data"], .announce: ["quiet"],
        .workout: ["id"], .workoutDelete: ["id"], .workoutAdd: ["bytes", "chunks"], .workoutData: ["seq", "data"],
    ]

    /// `?NAME;`, or `?NAME={...};` with the given parameters (the id is 7)
    /// and an `extra` one set to 1.
    static func line(_ name: CommandName, _ keys: [String], extra: String? = nil, spelled: String? = nil) -> String {
        var members = keys.map { "\"\($0)\":\($0 == "id" ? "7" : examples[name]?[$0] ?? "null")" }
        if let extra { members.append("\"\(extra)\":1") }
        let written = spelled ?? name.rawValue
        return members.isEmpty ? "?\(written);" : "?\(written)={\(members.joined(separator: ","))};"
    }
}

@Suite("Command names: the one list of the protocol's requests")
struct CommandNameTests {
    @Test("every name parses, bare or with what it needs and in any case, to a command of that name",
          arguments: CommandName.allCases)
    func roundTrip(name: CommandName) throws {
        let needed = RequestLines.needed[name] ?? []
        for line in [RequestLines.line(name, needed), RequestLines.line(name, needed, spelled: name.rawValue.lowercased())] {
            let request = try RequestParser.parse(line)
            #expect(request.command.name == name.rawValue, "\(line)")
            #expect(request.command.commandName == name, "\(line)")
        }
    }

    @Test("every request takes its listed parameters and an id, and its wire form reads back the same",
          arguments: CommandName.allCases)
    func parameters(name: CommandName) throws {
        #expect(Set((RequestLines.examples[name] ?? [:]).keys) == Set(name.parameters),
                "the examples above must give a value for each parameter of ?\(name.rawValue)")
        let request = try RequestParser.parse(RequestLines.line(name, ["id"] + name.parameters))
        #expect(request.command.name == name.rawValue)
        #expect(try RequestParser.parse(request.line).command == request.command)
    }

    @Test("any other parameter is refused with the list of those the request takes", arguments: CommandName.allCases)
    func otherParameter(name: CommandName) {
        let line = RequestLines.line(name, RequestLines.needed[name] ?? [], extra: "zzz")
        let error = #expect(throws: RequestError.self, "\(line)") { try RequestParser.parse(line) }
        let takes = (["id"] + name.parameters).map { "\"\($0)\"" }.joined(separator: ", ")
        #expect(error?.code == .badParameter)
        #expect(error?.message.hasSuffix("it takes " + takes) == true, "\(error?.message ?? "")")
    }

    @Test("an unknown request is refused with every known name, in the list's order")
    func unknown() {
        let error = #expect(throws: RequestError.self) { try RequestParser.parse("?FLY;") }
        #expect(error?.code == .unknownCommand)
        #expect(error?.message == "unknown request ?FLY; known: ?VERSION; ?STATUS; ?WATCH; ?START; ?PAUSE; ?RESUME; "
            + "?LAP; ?STOP; ?SESSIONS; ?SESSION; ?EXPORT; ?BADGES; ?DELETE; ?CONFIG; ?COURSES; ?COURSE; "
            + "?COURSE_DELETE; ?COURSE_ADD; ?COURSE_DATA; ?ANNOUNCE; ?WORKOUTS; ?WORKOUT; ?WORKOUT_DELETE; ?WORKOUT_ADD; "
            + "?WORKOUT_DATA;")
    }
}
