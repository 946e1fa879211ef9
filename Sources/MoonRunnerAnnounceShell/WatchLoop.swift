import FoundationEssentials
import Glibc
import MoonRunnerAnnounceCore
import MoonRunnerClient
import MoonRunnerProtocol
import MoonRunnerSystem

/// Follows the daemon with `?WATCH`, for ever: a daemon that is not there,
/// restarts or stops answering is reconnected with back-off (0.25 s
/// doubling to 5 s), and the announcer starts afresh on each connection.
struct WatchLoop {
    let socket: String
    let shared: Shared
    /// A watcher gets a STATUS every second during a session and every 10 s
    /// while idle: this long without a line means the daemon is stuck.
    static let silence = 31.0

    func run() -> Never {
        var backoff = 0.25
        var outage = false
        while true {
            do {
                let client = try ControlClient(path: socket, timeout: Self.silence)
                if let v = client.version, v.protoMajor != ProtocolVersion.major {
                    Log.line("moonrunnerd speaks protocol \(v.protoMajor).\(v.protoMinor), this announcer \(ProtocolVersion.major).\(ProtocolVersion.minor)")
                }
                try client.send(Request(command: .watch(enable: true)))
                shared.connected()
                var announced = false
                while let line = try client.readLine() {
                    let now = MonotonicClock.now()
                    switch ReplyEncoder.replyClass(of: line) {
                    case "STATUS":
                        guard let s = try? ReplyEncoder.decode(StatusReply.self, from: line) else { continue }
                        shared.status(s, course: CourseGlance.of(statusLine: line), at: now)
                        if !announced {
                            Log.line("watching \(socket) (daemon \(client.version?.release ?? "?"))\(outage ? " again" : "")")
                            announced = true
                            outage = false
                            backoff = 0.25
                        }
                    case "EVENT":
                        guard let e = try? ReplyEncoder.decode(EventReply.self, from: line) else { continue }
                        shared.event(e, at: now)
                    case "ERROR":
                        Log.line("the daemon said: \(line.prefix(200))")
                    default:
                        continue
                    }
                }
                Log.line("the daemon closed the connection; reconnecting")
                outage = true
            } catch {
                if !outage { Log.line("\(error); retrying") }
                outage = true
            }
            usleep(UInt32(backoff * 1e6))
            backoff = min(backoff * 2, 5)
        }
    }
}
