import ArgumentParser
import MoonRunnerClient
import MoonRunnerProtocol

extension ClientOptions {
    /// Pieces of an upload sent ahead of their replies.
    static let uploadWindow = 32

    /// Sends an upload's lines (`FileUpload.lines`: the announcement, then
    /// its pieces) a window at a time, each line kept under the daemon's
    /// line limit, and returns the last reply (the stored `COURSE` or
    /// `WORKOUT`) with the connection; an `ERROR` on the way ends the command.
    func upload(_ lines: [String]) throws -> (reply: String, client: ControlClient) {
        let client = try connect()
        do {
            try client.send(line: lines[0])
            var answered = try client.nextReply()
            try check(answered)
            var sent = 1, read = 1
            while read < lines.count {
                while sent < lines.count && sent - read < Self.uploadWindow {
                    try client.send(line: lines[sent])
                    sent += 1
                }
                answered = try client.nextReply()
                read += 1
                try check(answered)
            }
            return (answered, client)
        } catch let e as ExitCode {
            throw e
        } catch {
            throw fail("\(error)", ExitCodes.unavailable)
        }
    }
}
