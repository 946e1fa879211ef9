import MoonRunnerProtocol

/// What a connection's writer sends next: a reply line, or an export that
/// it streams piece by piece (each piece written before the next is made).
enum Outgoing: Sendable {
    case line(String)
    case export(ExportStream)
}

/// Produces the file for `?EXPORT`. The daemon wires it to the store and the
/// export writers; without it `?EXPORT` goes to `SessionService.handle`.
/// A failure is a `RequestError` (e.g. `.notFound`) that becomes the ERROR reply.
public typealias ExportProvider = @Sendable (_ session: Int64, _ format: String) async throws(RequestError) -> ExportFile
