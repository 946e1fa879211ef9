import Foundation
import Logging
import MoonRunnerProtocol

/// Answers the upload socket's requests: the ledger shown, retries and
/// uploads again handed to the queue, credentials taken in (and never given
/// back: a reply names the fields set, not their values), and the OAuth
/// grants begun and finished for the phone's browser.
public struct UploadDesk: Sendable {
    let queue: UploadQueue
    let ledger: Ledger
    let settings: UploadSettings
    let http: HTTP
    let now: @Sendable () -> Double

    public init(queue: UploadQueue, ledger: Ledger, settings: UploadSettings, http: HTTP,
                now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.queue = queue
        self.ledger = ledger
        self.settings = settings
        self.http = http
        self.now = now
    }

    /// The fields each target takes through `?SETUP`.
    static let fields: [TargetKind: Set<String>] = [
        .strava: ["client_id", "client_secret"],
        .intervals: ["athlete_id", "api_key"],
        .fittrackee: ["client_id", "client_secret"],
        .webdav: ["user", "password"],
    ]

    /// The reply line to one request line (never throws: failures are ERROR lines).
    public func answer(_ request: UploadRequest) async -> String {
        do {
            return try await reply(request)
        } catch let e as RequestError {
            return ReplyEncoder.line(ErrorReply(e))
        } catch let e as UploadFailure {
            let code: RequestError.Code = if case .refused = e { .forbidden } else { .unavailable }
            return ReplyEncoder.line(ErrorReply(RequestError(code, e.description)))
        } catch {
            return ReplyEncoder.line(ErrorReply(RequestError(.storeError, "the upload ledger failed: \(error)")))
        }
    }

    private func reply(_ request: UploadRequest) async throws -> String {
        switch request {
        case let .uploads(limit): return ReplyEncoder.line(UploadsReply(jobs: try ledger.jobs(limit: limit).map(Self.info)))
        case .targets: return try await targets()
        case let .retry(t, s):
            let n = try await queue.retry(target: try t.map(kind), session: s)
            return ReplyEncoder.line(UploadAck(cls: "RETRIED", jobs: n))
        case let .again(t, s):
            return ReplyEncoder.line(UploadAck(cls: "QUEUED", job: Self.info(try await queue.again(target: try kind(t), session: s))))
        case let .setup(t, f): return try await setup(try kind(t), f)
        case let .authorize(t, r): return ReplyEncoder.line(UploadAck(cls: "AUTHORIZE", url: try authorize(try kind(t), redirect: r)))
        case let .grant(state, code, scope): return try await grant(state: state, code: code, scope: scope)
        case let .disconnect(t):
            try ledger.setCredential(try kind(t), nil)
            return try await targets()
        case .watch: return ReplyEncoder.line(UploadAck(cls: "WATCHING"))
        }
    }

    func kind(_ name: String) throws -> TargetKind {
        guard let k = TargetKind(rawValue: name) else {
            throw RequestError(.badParameter, "unknown target \(name.prefix(20)); one of "
                + TargetKind.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return k
    }

    public static func info(_ j: UploadJob) -> UploadJobInfo {
        UploadJobInfo(target: j.target.rawValue, session: j.session, state: j.state.rawValue, remoteID: j.remoteID,
                      url: j.remoteURL, attempts: j.attempts, lastError: j.lastError, nextAt: j.nextAt, updatedAt: j.updatedAt)
    }

    func targets() async throws -> String {
        var list: [TargetInfo] = []
        for k in TargetKind.allCases {
            let c = try ledger.credential(k)
            let s = settings.target(k)
            let state = !s.enabled ? "disabled" : c?.refused != nil ? "reconnect" : c?.isConnected == true ? "connected" : "not_connected"
            list.append(TargetInfo(target: k.rawValue, title: k.title, enabled: s.enabled, state: state, account: c?.account,
                                   message: c?.refused, privacyZones: s.privacyZones && !settings.privacyZones.isEmpty,
                                   fieldsSet: (c?.fields.filter { !$0.value.isEmpty }.keys.sorted() ?? [])
                                       .filter { Self.fields[k]?.contains($0) == true }))
        }
        return ReplyEncoder.line(TargetsReply(targets: list, networkAllows: await queue.networkAllows))
    }

    /// Stores the fields; an API key or a password connects its target at once.
    func setup(_ k: TargetKind, _ fields: [String: String]) async throws -> String {
        let allowed = Self.fields[k] ?? []
        if let wrong = fields.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw RequestError(.badParameter, "\(k.title) takes \(allowed.sorted().joined(separator: ", ")), not \(wrong)")
        }
        var c = try ledger.credential(k) ?? Credential(fields: [:], connectedAt: now())
        let wasConnected = c.isConnected && c.refused == nil
        for (key, value) in fields where !value.isEmpty { c[key] = value }
        if k == .strava || k == .fittrackee, fields["client_id"] != nil {
            // A new application's grant is the one that counts: the old tokens are the old app's.
            for t in ["access_token", "refresh_token", "expires_at"] { c[t] = nil }
        }
        if c.isConnected && !wasConnected {
            c.connectedAt = now()
            c.refused = nil
        }
        try ledger.setCredential(k, c)
        if c.isConnected { await queue.connected(k) }
        return try await targets()
    }

    /// The authorization address for the phone, its state (and PKCE verifier) kept for the grant.
    func authorize(_ k: TargetKind, redirect: String) throws -> String {
        guard k == .strava || k == .fittrackee else { throw RequestError(.badParameter, "\(k.title) is connected with ?SETUP") }
        guard let id = try ledger.credential(k)?["client_id"], !id.isEmpty else {
            throw RequestError(.invalidState, "enter \(k.title)'s client id and secret first")
        }
        guard redirect.hasPrefix("http://") || redirect.hasPrefix("https://") else {
            throw RequestError(.badParameter, "\"redirect_uri\" must be the web app's http(s) address")
        }
        let state = OAuth.randomToken(16), verifier = OAuth.randomToken(32)
        try ledger.saveGrant(state: state, ["target": k.rawValue, "verifier": verifier, "redirect": redirect,
                                            "at": String(Int64(now()))])
        let s = settings.target(k)
        if k == .strava { return StravaTarget.authorizeURL(s, clientID: id, redirect: redirect, state: state) }
        return FitTrackeeTarget.authorizeURL(s, clientID: id, redirect: redirect, state: state,
                                             challenge: OAuth.challenge(verifier))
    }

    /// The redirect's code exchanged for tokens; Strava's granted scopes checked first.
    func grant(state: String, code: String, scope: String?) async throws -> String {
        guard let g = try ledger.takeGrant(state: state), let k = g["target"].flatMap(TargetKind.init),
              let at = g["at"].flatMap(Double.init), now() - at < 900 else {
            throw RequestError(.invalidState, "this authorization is unknown or older than 15 minutes; connect again")
        }
        guard let c = try ledger.credential(k) else { throw RequestError(.invalidState, "enter \(k.title)'s client id first") }
        if k == .strava, !StravaTarget.granted(scope ?? "") {
            throw RequestError(.forbidden, "Strava did not grant activity:write (granted: \(scope ?? "nothing")); "
                + "connect again and leave \"Upload your activities\" ticked")
        }
        let base = settings.target(k).url
        let tokenURL = k == .strava ? base + "/oauth/token" : base + "/api/oauth/token"
        let extra: [(String, String)] = k == .fittrackee ? [("code_verifier", g["verifier"] ?? ""), ("redirect_uri", g["redirect"] ?? "")] : []
        var (next, json) = try await OAuth.exchange(code: code, tokenURL: tokenURL, credential: c, http: http,
                                                    service: k.title, now: now(), extra: extra)
        if let athlete = json["athlete"], let first = athlete["firstname"]?.text {
            next.account = [first, athlete["lastname"]?.text ?? ""].joined(separator: " ").trimmingCharacters(in: .whitespaces)
        }
        try ledger.setCredential(k, next)
        await queue.connected(k)
        return try await targets()
    }
}
