import Foundation
import MoonRunnerProtocol

/// Strava API v3. The wearer's own API application, granted `activity:write`;
/// uploads go to `POST /api/v3/uploads` (FIT, name, description,
/// `external_id`) and are polled at `GET /api/v3/uploads/{id}` until ready
/// or failed.
///
/// Once: Strava keys nothing on `external_id` but refuses a file whose
/// activity it has ("… duplicate of <a href='/activities/123'>…"): a job in
/// doubt is sent again (or polled, when the upload id was kept) and the
/// duplicate's activity id is kept as the job's. Rate limits: a 429 waits for
/// the windows `X-RateLimit-*` (and for polls `X-ReadRateLimit-*`) say are
/// spent: the next quarter hour, or the next UTC midnight for a daily one.
public struct StravaTarget: UploadTarget {
    public let kind = TargetKind.strava
    let http: HTTP
    let base: String

    public init(http: HTTP, settings: TargetSettings) {
        self.http = http
        base = settings.url
    }

    var tokenURL: String { base + "/oauth/token" }

    public static let scope = "activity:write"

    /// Where the phone's browser goes to grant access.
    public static func authorizeURL(_ settings: TargetSettings, clientID: String, redirect: String, state: String) -> String {
        settings.authorizeURL + "?" + URLText.query([
            ("client_id", clientID), ("redirect_uri", redirect), ("response_type", "code"),
            ("approval_prompt", "auto"), ("scope", scope), ("state", state),
        ])
    }

    /// True when the scopes Strava returned on the redirect (comma-separated) include `activity:write`.
    public static func granted(_ scopes: String) -> Bool {
        scopes.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == scope }
    }

    public func find(_ attempt: UploadAttempt) async throws(UploadFailure) -> UploadOutcome? {
        guard let pending = attempt.job.pending else { return nil }
        return try await poll(attempt, pending: pending)
    }

    public func send(_ attempt: UploadAttempt) async throws(UploadFailure) -> UploadOutcome {
        let token = try await OAuth.accessToken(attempt, http: http, tokenURL: tokenURL, service: "Strava")
        var form = Multipart()
        form.file("file", filename: "moonrunner-\(attempt.job.session).fit", type: "application/vnd.ant.fit", attempt.file)
        form.field("data_type", "fit")
        form.field("name", attempt.title)
        form.field("description", attempt.description)
        form.field("external_id", "moonrunner-\(attempt.job.session)-\(Int64(attempt.job.startTime)).fit")
        let reply = try await http.send(.POST, base + "/api/v3/uploads",
                                        headers: [("Authorization", "Bearer \(token)"), ("Content-Type", form.contentType)],
                                        body: form.body)
        guard reply.status == 201 || reply.status == 200 else { throw failure(reply, now: attempt.now(), read: false) }
        return try read(reply)
    }

    public func poll(_ attempt: UploadAttempt, pending: String) async throws(UploadFailure) -> UploadOutcome {
        let token = try await OAuth.accessToken(attempt, http: http, tokenURL: tokenURL, service: "Strava")
        let reply = try await http.send(.GET, base + "/api/v3/uploads/\(URLText.escape(pending))",
                                        headers: [("Authorization", "Bearer \(token)")])
        guard reply.status == 200 else { throw failure(reply, now: attempt.now(), read: true) }
        return try read(reply)
    }

    /// The upload status object: an activity id, an error (a duplicate is the activity it names), or still processing.
    func read(_ reply: HTTPReply) throws(UploadFailure) -> UploadOutcome {
        guard let json = reply.json, let upload = json["id_str"]?.text ?? json["id"]?.text else {
            throw UploadFailure.server("Strava's upload answer cannot be read: \(reply.text)")
        }
        if let activity = json["activity_id"]?.text {
            return .done(id: activity, url: "https://www.strava.com/activities/\(activity)")
        }
        if let error = json["error"]?.text, !error.isEmpty {
            if let activity = Self.duplicateOf(error) {
                return .done(id: activity, url: "https://www.strava.com/activities/\(activity)")
            }
            throw UploadFailure.rejected("Strava could not read the file: \(error)")
        }
        return .processing(pending: upload)
    }

    /// The activity id in Strava's duplicate error (`… duplicate of <a href='/activities/123' …>` or `… activity 123`).
    public static func duplicateOf(_ error: String) -> String? {
        guard error.lowercased().contains("duplicate") else { return nil }
        for marker in ["/activities/", "activity "] {
            if let r = error.range(of: marker) {
                let digits = error[r.upperBound...].prefix { $0.isASCII && $0.isNumber }
                if !digits.isEmpty { return String(digits) }
            }
        }
        return nil
    }

    /// A 429 waits for every window its headers say is spent: the read limit's too for a poll
    /// (it counts against both), the overall one only for the upload.
    func failure(_ reply: HTTPReply, now: Double, read: Bool) -> UploadFailure {
        if reply.status == 429 {
            let prefixes = read ? ["X-RateLimit", "X-ReadRateLimit"] : ["X-RateLimit"]
            let pairs = prefixes.map { (reply.headers.first(name: "\($0)-Limit") ?? "", reply.headers.first(name: "\($0)-Usage") ?? "") }
            let until = StravaRateLimit.resume(pairs, now: now)
            let usage = pairs.map { "\($0.1) of \($0.0)" }.joined(separator: "; ")
            return .rateLimited(until: until, "Strava's rate limit is spent (usage \(usage)); waiting")
        }
        return reply.failure("Strava", now: now)
    }
}

/// When Strava's limits allow requests again. The headers give two numbers
/// each, the 15-minute window's and the day's (`200,2000` / `201,1500`); the
/// windows reset at each quarter hour and at midnight UTC.
public enum StravaRateLimit {
    public static func resume(limit: String, usage: String, now: Double) -> Double {
        let l = limit.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        let u = usage.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        let quarter = (now / 900).rounded(.down) * 900 + 900
        if l.count == 2, u.count == 2, u[1] >= l[1] {
            return (now / 86_400).rounded(.down) * 86_400 + 86_400
        }
        return quarter
    }

    /// The latest of the windows that `(limit, usage)` header pairs say are spent.
    public static func resume(_ pairs: [(limit: String, usage: String)], now: Double) -> Double {
        pairs.map { resume(limit: $0.limit, usage: $0.usage, now: now) }.max() ?? resume(limit: "", usage: "", now: now)
    }
}
