import Foundation
import MoonRunnerCore
import MoonRunnerProtocol

/// A self-hosted FitTrackee (0.7 or later): an OAuth2 client made in the
/// user's settings ("apps"), the authorization code grant with PKCE, scopes
/// `workouts:read workouts:write`, and `POST /api/workouts` with the file and
/// a `data` field of JSON naming the sport.
///
/// Once: FitTrackee has no key of the caller's on a workout, but a workout's
/// `workout_date` is the file's first point. A job in doubt first lists the
/// workouts of the session's days (`GET /api/workouts?from=&to=`, which is why
/// `workouts:read` is asked for) and takes the one that starts within a second
/// of the file; only when none does is the file sent again.
public struct FitTrackeeTarget: UploadTarget {
    public let kind = TargetKind.fittrackee
    let http: HTTP
    let base: String

    public init(http: HTTP, settings: TargetSettings) {
        self.http = http
        base = settings.url
    }

    public static let scope = "workouts:read workouts:write"
    var tokenURL: String { base + "/api/oauth/token" }

    /// FitTrackee's own sports, by the ids its first migration gives them.
    static func sportID(_ activity: String) -> Int {
        switch Activity(rawValue: activity) {
        case .ride: 1
        case .hike: 3
        case .walk: 6
        case .run, .trailRun, nil: 5
        }
    }

    /// Where the phone's browser goes to grant access (FitTrackee's own page for it).
    public static func authorizeURL(_ settings: TargetSettings, clientID: String, redirect: String, state: String,
                                    challenge: String) -> String {
        settings.url + "/profile/apps/authorize?" + URLText.query([
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirect), ("scope", scope),
            ("state", state), ("code_challenge", challenge), ("code_challenge_method", "S256"),
        ])
    }

    func token(_ attempt: UploadAttempt) async throws(UploadFailure) -> String {
        guard !base.isEmpty else { throw UploadFailure.refused("upload.fittrackee.url is not set") }
        return try await OAuth.accessToken(attempt, http: http, tokenURL: tokenURL, service: "FitTrackee")
    }

    public func find(_ attempt: UploadAttempt) async throws(UploadFailure) -> UploadOutcome? {
        let token = try await token(attempt)
        let start = attempt.job.startTime
        let query = URLText.query([("from", DayText.iso(start - 86_400)), ("to", DayText.iso(start + 86_400)), ("per_page", "100")])
        let reply = try await http.send(.GET, base + "/api/workouts?" + query, headers: [("Authorization", "Bearer \(token)")])
        guard reply.status == 200 else { throw reply.failure("FitTrackee", now: attempt.now()) }
        for w in reply.json?["data"]?["workouts"]?.list ?? [] {
            guard let date = w["workout_date"]?.text.flatMap(DayText.rfc1123), abs(date - start) <= 1,
                  let id = w["id"]?.text else { continue }
            return .done(id: id, url: base + "/workouts/\(id)")
        }
        return nil
    }

    public func send(_ attempt: UploadAttempt) async throws(UploadFailure) -> UploadOutcome {
        let token = try await token(attempt)
        var form = Multipart()
        form.file("file", filename: "moonrunner-\(attempt.job.session).fit", type: "application/octet-stream", attempt.file)
        let data = JSONValue.object(["sport_id": .number(Double(Self.sportID(attempt.job.activity))),
                                     "title": .string(attempt.title), "notes": .string(attempt.description)])
        form.field("data", data.serialized)
        let reply = try await http.send(.POST, base + "/api/workouts",
                                        headers: [("Authorization", "Bearer \(token)"), ("Content-Type", form.contentType)],
                                        body: form.body)
        guard (200...299).contains(reply.status) else { throw reply.failure("FitTrackee", now: attempt.now()) }
        guard let id = reply.json?["data"]?["workouts"]?.list.first?["id"]?.text else {
            throw UploadFailure.server("FitTrackee's answer has no workout: \(reply.text)")
        }
        return .done(id: id, url: base + "/workouts/\(id)")
    }
}
