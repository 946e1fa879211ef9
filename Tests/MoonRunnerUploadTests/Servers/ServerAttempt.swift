import Foundation
@testable import MoonRunnerUpload

/// A credential kept in memory the way the ledger keeps it: the suites read
/// back what a refresh wrote (a rotated refresh token).
final class CredentialBox: @unchecked Sendable {
    private let lock = NSLock()
    private var kept: Credential

    init(_ c: Credential) { kept = c }
    var value: Credential { lock.withLock { kept } }
    func set(_ c: Credential) { lock.withLock { kept = c } }
}

/// One attempt at one job, as the queue builds it, over a target talking to a real server.
struct ServerAttempt {
    let box: CredentialBox
    let attempt: UploadAttempt

    init(_ kind: TargetKind, session: Int64, run: RunFile, credential: Credential, title: String = "MoonRunner run") {
        let box = CredentialBox(credential)
        self.box = box
        let job = UploadJob(target: kind, session: session, startTime: run.session.startTime, activity: "run",
                            at: Date().timeIntervalSince1970)
        let gpx = run.gpx
        attempt = UploadAttempt(job: job, file: run.fit, title: title, description: "Recorded with MoonRunner (session \(session)).",
                                keeper: CredentialKeeper(credential) { box.set($0) }, now: { Date().timeIntervalSince1970 },
                                other: { format in format == "gpx" ? gpx : nil })
    }
}

/// Runs `body` with an HTTP client like the service's, shut down after whatever happened.
func withHTTP<T>(_ body: (HTTP) async throws -> T) async throws -> T {
    let client = HTTP.makeClient()
    do {
        let result = try await body(HTTP(client: client))
        try await client.shutdown()
        return result
    } catch {
        try? await client.shutdown()
        throw error
    }
}
