import Foundation

/// A WebDAV folder (Nextcloud, ownCloud, Apache mod_dav, any RFC 4918
/// server): user and app password over HTTP Basic, `PUT` of the FIT file
/// (and, when `upload.webdav.gpx` is on, a GPX beside it), `MKCOL` of the
/// folder when the server says it is missing (409).
///
/// Once: the file's name is the session's (`moonrunner-YYYYMMDD-HHMMSS-<session>.fit`)
/// and `PUT` replaces what has that name, so a retry after a lost answer
/// writes the same bytes to the same file: never a second copy.
public struct WebDAVTarget: UploadTarget {
    public let kind = TargetKind.webdav
    let http: HTTP
    let folder: String
    let gpx: Bool

    public init(http: HTTP, settings: TargetSettings) {
        self.http = http
        folder = settings.url
        gpx = settings.gpx
    }

    static func name(_ job: UploadJob, _ ext: String) -> String {
        "moonrunner-\(DayText.stamp(job.startTime))-\(job.session).\(ext)"
    }

    /// Nothing to look for: a `PUT` again is harmless.
    public func find(_ attempt: UploadAttempt) async throws(UploadFailure) -> UploadOutcome? { nil }

    public func send(_ attempt: UploadAttempt) async throws(UploadFailure) -> UploadOutcome {
        guard !folder.isEmpty else { throw UploadFailure.refused("upload.webdav.url is not set") }
        let c = await attempt.keeper.credential
        guard let user = c["user"], let password = c["password"] else {
            throw UploadFailure.refused("the WebDAV folder is not connected; enter its user and app password")
        }
        let auth = ("Authorization", HTTP.basic(user, password))
        let fit = Self.name(attempt.job, "fit")
        try await put(fit, attempt.file, type: "application/vnd.ant.fit", auth: auth, now: attempt.now())
        if gpx {
            do {
                if let data = try await attempt.other("gpx") {
                    try await put(Self.name(attempt.job, "gpx"), data, type: "application/gpx+xml", auth: auth, now: attempt.now())
                }
            } catch let e as UploadFailure {
                throw e
            } catch {
                throw UploadFailure.server("the GPX file could not be made: \(error)")
            }
        }
        return .done(id: fit, url: folder + "/" + URLText.escape(fit))
    }

    func put(_ name: String, _ data: Data, type: String, auth: (String, String), now: Double) async throws(UploadFailure) {
        let url = folder + "/" + URLText.escape(name)
        var reply = try await http.send(.PUT, url, headers: [auth, ("Content-Type", type)], body: Array(data))
        if reply.status == 409 {
            let made = try await http.send(.init(rawValue: "MKCOL"), folder + "/", headers: [auth])
            guard made.status == 201 || made.status == 405 else { throw made.failure("WebDAV", now: now) }
            reply = try await http.send(.PUT, url, headers: [auth, ("Content-Type", type)], body: Array(data))
        }
        guard (200...299).contains(reply.status) else { throw reply.failure("WebDAV", now: now) }
    }
}
