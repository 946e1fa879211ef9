import FoundationEssentials
import Glibc
import MoonRunnerClient
import MoonRunnerProtocol
import MoonRunnerSystem

/// Follows moonrunner-upload with `?WATCH` on its socket, for ever: each
/// `UPLOADED` line goes to the announcer. The service may not be installed
/// or may restart: it is reconnected with `WatchLoop`'s back-off, and its
/// absence is logged once. Its watch has no heartbeat, so reads wait without
/// a timeout; a service that goes away closes the connection.
struct UploadWatchLoop {
    let socket: String
    let shared: Shared

    func run() -> Never {
        var backoff = 0.25
        var outage = false
        while true {
            do {
                let client = try ControlClient(path: socket, timeout: 0)
                try client.send(line: UploadRequest.watch.line)
                Log.line("watching uploads at \(socket)\(outage ? " again" : "")")
                outage = false
                backoff = 0.25
                while let line = try client.readLine() {
                    switch ReplyEncoder.replyClass(of: line) {
                    case "UPLOADED":
                        guard let u = try? ReplyEncoder.decode(UploadedReply.self, from: line) else { continue }
                        shared.uploaded(u, at: MonotonicClock.now())
                    case "ERROR": Log.line("the upload service said: \(line.prefix(200))")
                    default: continue
                    }
                }
                Log.line("the upload service closed the connection; reconnecting")
                outage = true
            } catch {
                let why = (error as? ControlClient.Unavailable)?.reason ?? "\(error)"
                if !outage { Log.line("uploads are not said until moonrunner-upload answers at \(socket) (\(why))") }
                outage = true
            }
            usleep(UInt32(backoff * 1e6))
            backoff = min(backoff * 2, 5)
        }
    }
}
