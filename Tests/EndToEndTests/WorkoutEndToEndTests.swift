import Foundation
import MoonRunnerProtocol
import Testing

/// The workout library through the real CLI and daemon: add (the text form,
/// and a refusal that stores nothing), list, show, start a session with it,
/// remove.
@Suite("Workouts end to end", .serialized)
struct WorkoutEndToEndTests {
    @Test("workout add|list|show|remove and start --workout, through the CLI and the daemon")
    func library() throws {
        let rig = try Rig("workout")
        let d = try SocketDaemon(rig)
        func cli(_ args: String...) throws -> (status: Int32, out: String, err: String) { try d.cli(args) }

        let added = try cli("workout", "add", "--name", "Tuesday",
                            "--text", "15m easy; 6x(800m @3:50-4:00/km, 90s rest); 10m easy")
        #expect(added.status == 0 && added.out.contains("added workout #1"), "\(added)")
        #expect(added.out.contains("2/14 interval (1 of 6): 800 m @ 3:50 min/km-4:00 min/km"), "\(added.out)")

        let bad = rig.dir.appendingPathComponent("notes.txt")
        try Data("hello, not a workout".utf8).write(to: bad)
        let refused = try cli("workout", "add", bad.path)
        #expect(refused.status == 1 && refused.err.contains("bad_workout") && refused.err.contains("nothing was stored"),
                "\(refused)")

        let list = try ReplyEncoder.decode(WorkoutsReply.self, from: try cli("workout", "list", "--json").out)
        #expect(list.workouts.map(\.name) == ["Tuesday"] && list.workouts.first?.steps == 14)
        #expect(try cli("workout", "show", "1").out.contains("14/14 cooldown: 00:10:00"))

        let start = try cli("start", "--workout", "1", "--json")
        #expect(start.status == 0, "\(start.err)")
        let status = try ReplyEncoder.decode(StatusReply.self, from: start.out)
        #expect(status.workout?.step.index == 0 && status.workout?.steps == 14, "\(start.out)")
        #expect(try cli("stop").status == 0)

        #expect(try cli("workout", "remove", "1").out.contains("removed workout #1"))
        #expect(try ReplyEncoder.decode(WorkoutsReply.self, from: try cli("workout", "list", "--json").out).workouts.isEmpty)
        #expect(try cli("start", "--workout", "1").status == 1, "a removed workout cannot be started")
    }
}
