import FoundationEssentials
import MoonRunnerCore

/// The upload service's socket (`upload.admin_socket`): what `moonrunner
/// upload …` and the web app ask moonrunner-upload, in the control socket's
/// manner (a `VERSION` greeting, one request per line, one JSON reply per
/// line, `ERROR` replies with the same codes). Secrets go in (`?SETUP`) and
/// never come out: replies name which fields are set, not their values.
public enum UploadRequest: Sendable, Equatable {
    /// The jobs of the ledger, newest session first.
    case uploads(limit: Int)
    /// Each target's state and the network's.
    case targets
    /// Try now: failed and held jobs are queued again, waiting ones brought forward.
    case retry(target: String?, session: Int64?)
    /// Send a session to a target again, although it was sent.
    case again(target: String, session: Int64)
    /// Stores a target's fields (client id and secret, athlete id and API key, user and password).
    case setup(target: String, fields: [String: String])
    /// The address to send the phone's browser to, to grant access (Strava, FitTrackee).
    case authorize(target: String, redirect: String)
    /// The redirect's code, state and (Strava) granted scopes, exchanged for tokens.
    case grant(state: String, code: String, scope: String?)
    /// Forgets a target's credential.
    case disconnect(target: String)
    /// Streams an `UPLOADED` line (`UploadedReply`) as each job finishes.
    case watch

    /// Whether the request changes anything: only those need upload.admin_group. The
    /// others only read (the announcer watches), open to whoever may reach the socket.
    public var changesState: Bool {
        switch self {
        case .uploads, .targets, .watch: false
        case .retry, .again, .setup, .authorize, .grant, .disconnect: true
        }
    }

    public var line: String {
        func l(_ name: String, _ p: [String: JSONValue]) -> String { "?\(name)=\(JSONValue.object(p).serialized);" }
        switch self {
        case let .uploads(limit): return l("UPLOADS", ["limit": .number(Double(limit))])
        case .targets: return "?TARGETS;"
        case let .retry(t, s):
            var p: [String: JSONValue] = [:]
            if let t { p["target"] = .string(t) }
            if let s { p["session"] = .number(Double(s)) }
            return p.isEmpty ? "?RETRY;" : l("RETRY", p)
        case let .again(t, s): return l("AGAIN", ["target": .string(t), "session": .number(Double(s))])
        case let .setup(t, f): return l("SETUP", ["target": .string(t), "fields": .object(f.mapValues { .string($0) })])
        case let .authorize(t, r): return l("AUTHORIZE", ["target": .string(t), "redirect_uri": .string(r)])
        case let .grant(state, code, scope):
            var p: [String: JSONValue] = ["state": .string(state), "code": .string(code)]
            if let scope { p["scope"] = .string(scope) }
            return l("GRANT", p)
        case let .disconnect(t): return l("DISCONNECT", ["target": .string(t)])
        case .watch: return "?WATCH;"
        }
    }

    /// Parses a request line of the upload socket.
    public static func parse(_ raw: String) throws(RequestError) -> UploadRequest {
        var line = Substring(raw)
        while let c = line.first, c == " " || c == "\t" { line.removeFirst() }
        while let c = line.last, c == " " || c == "\t" || c == "\r" || c == "\n" { line.removeLast() }
        guard line.first == "?" else { throw RequestError(.syntax, "a request starts with '?', e.g. ?TARGETS;") }
        line.removeFirst()
        if line.last == ";" { line.removeLast() }
        var name = line, p: [String: JSONValue] = [:]
        if let eq = line.firstIndex(of: "=") {
            name = line[..<eq]
            guard case let .object(o)? = try? JSONValue.parse(String(line[line.index(after: eq)...])) else {
                throw RequestError(.badJSON, "the parameters must be a JSON object, e.g. ?RETRY={\"target\":\"strava\"};")
            }
            p = o
        }
        func text(_ k: String) throws(RequestError) -> String {
            guard case let .string(s)? = p[k], !s.isEmpty, s.count <= 2048 else {
                throw RequestError(.badParameter, "?\(name.uppercased()) needs \"\(k)\", a string")
            }
            return s
        }
        func session() throws(RequestError) -> Int64? {
            guard let v = p["session"] else { return nil }
            guard case let .number(n) = v, n >= 1, n < 1e15, n.rounded() == n else {
                throw RequestError(.badParameter, "\"session\" must be a session's id")
            }
            return Int64(n)
        }
        switch name.uppercased() {
        case "UPLOADS":
            if case let .number(n)? = p["limit"], n >= 1, n <= 10_000 { return .uploads(limit: Int(n)) }
            return .uploads(limit: 200)
        case "TARGETS": return .targets
        case "WATCH": return .watch
        case "RETRY": return .retry(target: p["target"] == nil ? nil : try text("target"), session: try session())
        case "AGAIN":
            guard let s = try session() else { throw RequestError(.badParameter, "?AGAIN needs \"session\"") }
            return .again(target: try text("target"), session: s)
        case "SETUP":
            guard case let .object(f)? = p["fields"], f.count <= 8 else {
                throw RequestError(.badParameter, "?SETUP needs \"fields\", an object of strings")
            }
            var fields: [String: String] = [:]
            for (k, v) in f {
                guard case let .string(s) = v, s.count <= 2048 else { throw RequestError(.badParameter, "\"\(k)\" must be a string") }
                fields[k] = s
            }
            return .setup(target: try text("target"), fields: fields)
        case "AUTHORIZE": return .authorize(target: try text("target"), redirect: try text("redirect_uri"))
        case "GRANT":
            let scope: String? = p["scope"] == nil ? nil : try text("scope")
            return .grant(state: try text("state"), code: try text("code"), scope: scope)
        case "DISCONNECT": return .disconnect(target: try text("target"))
        default:
            throw RequestError(.unknownCommand, "unknown request ?\(name.prefix(20)); known: ?UPLOADS; ?TARGETS; ?RETRY; "
                + "?AGAIN; ?SETUP; ?AUTHORIZE; ?GRANT; ?DISCONNECT; ?WATCH;")
        }
    }
}

/// One job of the ledger as the socket shows it.
public struct UploadJobInfo: Codable, Sendable, Equatable {
    public var target: String
    public var session: Int64
    /// queued, sending, processing, done, failed, deleted, empty or held.
    public var state: String
    @NullCoded public var remoteID: String?
    @NullCoded public var url: String?
    public var attempts: Int
    @NullCoded public var lastError: String?
    public var nextAt: Double
    public var updatedAt: Double

    public init(target: String, session: Int64, state: String, remoteID: String?, url: String?, attempts: Int,
                lastError: String?, nextAt: Double, updatedAt: Double) {
        self.target = target
        self.session = session
        self.state = state
        self.remoteID = remoteID
        self.url = url
        self.attempts = attempts
        self.lastError = lastError
        self.nextAt = nextAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case target, session, state, remoteID = "remote_id", url, attempts, lastError = "last_error",
             nextAt = "next_at", updatedAt = "updated_at"
    }
}

/// `{"class":"UPLOADS","jobs":[...]}`.
public struct UploadsReply: Codable, Sendable, Equatable {
    public var cls = "UPLOADS"
    public var jobs: [UploadJobInfo]
    public init(jobs: [UploadJobInfo]) { self.jobs = jobs }
    enum CodingKeys: String, CodingKey { case cls = "class", jobs }
}

/// A target as the socket shows it: never a secret, only which fields are set.
public struct TargetInfo: Codable, Sendable, Equatable {
    public var target: String
    public var title: String
    public var enabled: Bool
    /// `connected`, `not_connected`, `reconnect` (the service refused the credential) or `disabled`.
    public var state: String
    @NullCoded public var account: String?
    @NullCoded public var message: String?
    public var privacyZones: Bool
    /// The names of the fields stored (e.g. `client_id`, `client_secret`), not their values.
    public var fieldsSet: [String]

    public init(target: String, title: String, enabled: Bool, state: String, account: String?, message: String?,
                privacyZones: Bool, fieldsSet: [String]) {
        self.target = target
        self.title = title
        self.enabled = enabled
        self.state = state
        self.account = account
        self.message = message
        self.privacyZones = privacyZones
        self.fieldsSet = fieldsSet
    }

    enum CodingKeys: String, CodingKey {
        case target, title, enabled, state, account, message, privacyZones = "privacy_zones", fieldsSet = "fields_set"
    }
}

/// `{"class":"TARGETS","targets":[...],"network":{...}}`.
public struct TargetsReply: Codable, Sendable, Equatable {
    public var cls = "TARGETS"
    public var targets: [TargetInfo]
    /// Whether the network allows uploads now.
    public var networkAllows: Bool
    public init(targets: [TargetInfo], networkAllows: Bool) {
        self.targets = targets
        self.networkAllows = networkAllows
    }
    enum CodingKeys: String, CodingKey { case cls = "class", targets, networkAllows = "network_allows" }
}

/// `{"class":"UPLOADED",...}`, one line on the upload socket's `?WATCH` as a job reaches
/// its end: `done` (the announcer says it), `failed`, `held`, `deleted` or `empty`.
public struct UploadedReply: Codable, Sendable, Equatable {
    public var cls = "UPLOADED"
    public var target: String
    public var session: Int64
    /// The session's activity (`run`, `walk`, …), as `?SESSIONS` names it.
    public var activity: String
    public var state: String
    @NullCoded public var url: String?
    /// When the job finished, UNIX seconds on the upload service's clock.
    public var time: Double

    public init(target: String, session: Int64, activity: String, state: String, url: String?, time: Double) {
        self.target = target
        self.session = session
        self.activity = activity
        self.state = state
        self.url = url
        self.time = time
    }

    enum CodingKeys: String, CodingKey { case cls = "class", target, session, activity, state, url, time }
}

/// `{"class":"RETRIED","jobs":N}`, `{"class":"AUTHORIZE","url":...}`, `{"class":"QUEUED",...}`: small replies.
public struct UploadAck: Codable, Sendable, Equatable {
    public var cls: String
    @NullCoded public var url: String?
    @NullCoded public var jobs: Int?
    @NullCoded public var job: UploadJobInfo?

    public init(cls: String, url: String? = nil, jobs: Int? = nil, job: UploadJobInfo? = nil) {
        self.cls = cls
        self.url = url
        self.jobs = jobs
        self.job = job
    }

    enum CodingKeys: String, CodingKey { case cls = "class", url, jobs, job }
}
