import Foundation
import MoonRunnerProtocol

/// intervals.icu: the athlete id and personal API key (HTTP Basic, user
/// `API_KEY`), `POST /api/v1/athlete/{id}/activities` with the FIT file as
/// multipart form data and `name`, `description` and `external_id` in the query.
///
/// Once: every upload carries `external_id` `moonrunner-<session>-<start>`,
/// and activities carry it back. A job in doubt first lists the athlete's
/// activities of the session's days (`GET …/activities?oldest=&newest=`) and
/// takes the one with that `external_id` if it is there; only then is the
/// file sent again.
public struct IntervalsTarget: UploadTarget {
    public let kind = TargetKind.intervals
    let http: HTTP
    let base: String

    public init(http: HTTP, settings: TargetSettings) {
        self.http = http
        base = settings.url
    }

    static func externalID(_ job: UploadJob) -> String { "moonrunner-\(job.session)-\(Int64(job.startTime))" }

    func auth(_ attempt: UploadAttempt) async throws(UploadFailure) -> (athlete: String, header: String) {
        let c = await attempt.keeper.credential
        guard let athlete = c["athlete_id"], !athlete.isEmpty, let key = c["api_key"], !key.isEmpty else {
            throw UploadFailure.refused("intervals.icu is not connected; enter the athlete id and API key")
        }
        return (athlete, HTTP.basic("API_KEY", key))
    }

    public func find(_ attempt: UploadAttempt) async throws(UploadFailure) -> UploadOutcome? {
        let (athlete, header) = try await auth(attempt)
        let day = 86_400.0
        let query = URLText.query([("oldest", DayText.iso(attempt.job.startTime - day)),
                                   ("newest", DayText.iso(attempt.job.startTime + day))])
        let reply = try await http.send(.GET, base + "/api/v1/athlete/\(URLText.escape(athlete))/activities?" + query,
                                        headers: [("Authorization", header)])
        guard reply.status == 200 else { throw reply.failure("intervals.icu", now: attempt.now()) }
        let wanted = Self.externalID(attempt.job)
        for activity in reply.json?.list ?? [] where activity["external_id"]?.text == wanted {
            if let id = activity["id"]?.text { return .done(id: id, url: base + "/activities/\(id)") }
        }
        return nil
    }

    public func send(_ attempt: UploadAttempt) async throws(UploadFailure) -> UploadOutcome {
        let (athlete, header) = try await auth(attempt)
        var form = Multipart()
        form.file("file", filename: "moonrunner-\(attempt.job.session).fit", type: "application/vnd.ant.fit", attempt.file)
        let query = URLText.query([("name", attempt.title), ("description", attempt.description),
                                   ("external_id", Self.externalID(attempt.job))])
        let reply = try await http.send(.POST, base + "/api/v1/athlete/\(URLText.escape(athlete))/activities?" + query,
                                        headers: [("Authorization", header), ("Content-Type", form.contentType)],
                                        body: form.body)
        guard (200...299).contains(reply.status) else { throw reply.failure("intervals.icu", now: attempt.now()) }
        guard let id = reply.json?["id"]?.text else {
            throw UploadFailure.server("intervals.icu's answer has no activity id: \(reply.text)")
        }
        return .done(id: id, url: base + "/activities/\(id)")
    }
}

/// Dates as the services' queries take them.
enum DayText {
    /// `2026-11-28` (UTC).
    static func iso(_ t: Double) -> String {
        var time = time_t(t)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(format: "%04d-%02d-%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday))
    }

    /// `20261128-101500` (UTC), for file names that sort by time.
    static func stamp(_ t: Double) -> String {
        var time = time_t(t)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(format: "%04d%02d%02d-%02d%02d%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                      Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }

    /// RFC 1123 (`Sat, 28 Nov 2026 10:15:00 GMT`, FitTrackee's `workout_date`) as UNIX seconds.
    static func rfc1123(_ s: String) -> Double? {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let p = s.split(separator: " ")
        guard p.count >= 5, let day = Int32(p[1]), let month = months.firstIndex(of: String(p[2])), let year = Int32(p[3]) else {
            return nil
        }
        let hms = p[4].split(separator: ":").compactMap { Int32($0) }
        guard hms.count == 3 else { return nil }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = Int32(month)
        parts.tm_mday = day
        parts.tm_hour = hms[0]
        parts.tm_min = hms[1]
        parts.tm_sec = hms[2]
        return Double(timegm(&parts))
    }
}
