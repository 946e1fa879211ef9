import MoonRunnerProtocol

/// What a connection's writer sends next: a reply line, or an export that
/// it streams piece by piece (each piece written before the next is made).
enum Outgoing: Sendable {
    case line(String)
    case export(ExportStream)
}
