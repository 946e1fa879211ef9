import Foundation
import MoonRunnerProtocol
import Testing

/// hooks.on_transition: a command on every state change (to beep or buzz),
/// killed after its timeout, never holding up the sensors.
@Suite("Transition hook", .serialized)
struct HookEndToEndTests {
    @Test("the hook runs on each transition with its event; a hook that hangs is killed and blocks nothing")
    func hook() async throws {
        let rig = try Rig("hook")
        let log = rig.dir.appendingPathComponent("hook.log").path
        let pids = rig.dir.appendingPathComponent("hook.pids").path
        // Each run records its event, then the pause hook hangs far beyond its timeout.
        let command = "echo \\\"$MOONRUNNER_EVENT $MOONRUNNER_CAUSE $MOONRUNNER_SESSION\\\" >> \(log); "
            + "if [ \\\"$MOONRUNNER_EVENT\\\" = pause ]; then echo $$ >> \(pids); exec sleep 600; fi"
        try rig.startGPS(epochsPerSecond: 10, loop: true)
        try rig.startDaemon(speed: 10, config: "hooks:\n  on_transition: \"\(command)\"\n  timeout_s: 1\n", loop: true)
        #expect(try rig.cli("start").status == 0)
        _ = try rig.waitFor(timeout: 20, "steps") { $0.steps > 10 }
        #expect(try rig.cli("pause").status == 0)
        let paused = try rig.status()
        #expect(try rig.cli("resume").status == 0)
        // The hung hook does not hold up the sensors: steps keep coming.
        _ = try rig.waitFor(timeout: 20, "steps after the hung hook") { $0.steps > paused.steps + 10 }
        #expect(try rig.cli("stop").status == 0)
        let ok = eventually(timeout: 10) {
            let lines = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
            return lines.count >= 4
        }
        #expect(ok)
        let lines = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        let events = lines.map { $0.split(separator: " ").first.map(String.init) ?? "" }
        #expect(events.contains("start") && events.contains("pause") && events.contains("resume") && events.contains("stop"), "\(lines)")
        #expect(lines.first { $0.hasPrefix("pause") }?.contains("command") == true)
        // The hung one was killed after its timeout.
        let pid = Int32(((try? String(contentsOfFile: pids, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(pid > 0)
        let gone = eventually(timeout: 10) { kill(pid, 0) != 0 }
        #expect(gone, "the hook \(pid) is still running")
        #expect(rig.daemon?.isRunning == true)
    }
}
