import Foundation
import MoonRunnerProtocol
import MoonRunnerTestSupport
@testable import MoonRunnerUpload

/// A real FitTrackee (PyPI) on a PostgreSQL cluster with PostGIS (Debian's
/// postgresql-15 and postgresql-15-postgis-3), both started in a scratch
/// folder on loopback ports: `initdb` (as the `postgres` user when the test
/// runs as root: PostgreSQL refuses root), the database and PostGIS made,
/// FitTrackee's migrations run with `ftcli db upgrade`, one user made with
/// `ftcli users create`, then its gunicorn server. FitTrackee draws each
/// workout's map from tiles: a loopback server hands it one blank tile for
/// any (there is no internet here). About 15 s here.
final class FitTrackeeServer: @unchecked Sendable {
    let dir: String
    let port: Int
    let pgPort: Int
    let tilePort: Int
    private var children: [Child] = []
    static let email = "runner@example.org"
    static let password = "Pass-w0rd-long"

    init() async throws {
        guard let pg = ServerTools.postgresBin, let ftcli = ServerTools.ftcli, let fittrackee = ServerTools.fittrackee else {
            throw SpawnError("FitTrackee or PostgreSQL is not installed")
        }
        dir = try ServerTools.scratch("fittrackee")
        port = try ServerTools.freePort()
        pgPort = try ServerTools.freePort()
        tilePort = try ServerTools.freePort()
        let data = dir + "/pg"
        // The postgres user must reach its data folder whatever the test process's umask.
        chmod(dir, 0o755)
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/uploads", withIntermediateDirectories: true)
        let asPostgres: [String] = getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []
        if getuid() == 0 { try Self.check(run("/bin/chown", ["postgres", data])) }
        let initdb = asPostgres + [pg + "/initdb", "-D", data, "-A", "trust", "-U", "postgres"]
        try Self.check(run(initdb[0], Array(initdb.dropFirst()), timeout: 120))
        let postgres = asPostgres + [pg + "/postgres", "-D", data, "-p", String(pgPort), "-k", data, "-h", "127.0.0.1"]
        children.append(try Child(postgres[0], Array(postgres.dropFirst()), log: URL(fileURLWithPath: dir + "/postgres.log")))
        try await ServerTools.waitListening(pgPort, children[0], timeout: 30)
        // Listening is not ready: "the database system is starting up" until recovery ends.
        let deadline = Date().addingTimeInterval(30)
        while (try? run(pg + "/pg_isready", ["-q", "-h", "127.0.0.1", "-p", String(pgPort)]))?.status != 0 {
            guard Date() < deadline else { throw SpawnError("PostgreSQL did not get ready: \(children[0].log.suffix(1000))") }
            try await Task.sleep(for: .milliseconds(100))
        }
        let psql = [pg + "/psql", "-q", "-h", "127.0.0.1", "-p", String(pgPort), "-U", "postgres"]
        try Self.check(run(psql[0], Array(psql.dropFirst()) + ["-c", "CREATE DATABASE fittrackee"]))
        try Self.check(run(psql[0], Array(psql.dropFirst()) + ["-d", "fittrackee", "-c", "CREATE EXTENSION IF NOT EXISTS postgis"]))
        let python = (fittrackee as NSString).deletingLastPathComponent + "/python3"
        try FileManager.default.createDirectory(atPath: dir + "/tiles", withIntermediateDirectories: true)
        try Self.check(run(python, ["-c", "from PIL import Image; Image.new('RGB', (256, 256), 'white').save('\(dir)/tiles/tile.png')"]))
        children.append(try Child(python, ["-m", "http.server", String(tilePort), "--bind", "127.0.0.1", "--directory", dir + "/tiles"],
                                  log: URL(fileURLWithPath: dir + "/tiles.log")))
        let env = environment
        try Self.check(run(ftcli, ["db", "upgrade"], timeout: 300, env: env))
        try Self.check(run(ftcli, ["users", "create", "runner", "--email", Self.email, "--password", Self.password], timeout: 120, env: env))
        children.append(try Child(fittrackee, [], log: URL(fileURLWithPath: dir + "/fittrackee.log"), env: env))
        try await ServerTools.waitListening(port, children[2], timeout: 60)
    }

    deinit {
        for child in children.reversed() {
            child.signal(SIGTERM)
            if child.wait(timeout: 10) == nil {
                child.signal(SIGKILL)
                _ = child.wait(timeout: 5)
            }
        }
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// FitTrackee's settings, as a production server's (no Redis: its rate limits are off).
    var environment: [String: String] {
        ["DATABASE_URL": "postgresql://postgres@127.0.0.1:\(pgPort)/fittrackee", "APP_SECRET_KEY": "moonrunner-test",
         "UI_URL": base, "UPLOAD_FOLDER": dir + "/uploads", "HOST": "127.0.0.1", "PORT": String(port),
         "REDIS_URL": "redis://127.0.0.1:1", "APP_LOG": dir + "/app.log",
         "TILE_SERVER_URL": "http://127.0.0.1:\(tilePort)/tile.png?{z}-{x}-{y}"]
    }

    var base: String { "http://127.0.0.1:\(port)" }

    var settings: TargetSettings { TargetSettings(privacyZones: true, url: base) }

    private static func check(_ r: (status: Int32, out: String, err: String)) throws {
        guard r.status == 0 else { throw SpawnError("exit \(r.status): \(r.err.suffix(1500)) \(r.out.suffix(500))") }
    }
}

/// The FitTrackee web page in the wearer's browser: logged in with the
/// first-party cookies (its JWT and the CSRF token it asks back in a
/// header), it registers an app and approves an authorization the way
/// FitTrackee's own page does (`POST /api/oauth/authorize` with `confirm`).
struct FitTrackeeBrowser {
    let http: HTTP
    let base: String
    private var cookies: [String: String] = [:]

    init(http: HTTP, base: String) {
        self.http = http
        self.base = base
    }

    mutating func login() async throws {
        let body = #"{"email":"\#(FitTrackeeServer.email)","password":"\#(FitTrackeeServer.password)"}"#
        let r = try await http.send(.POST, base + "/api/auth/login", headers: [("Content-Type", "application/json")], body: Array(body.utf8))
        guard r.status == 200 else { throw SpawnError("login: \(r.status) \(r.text)") }
        for line in r.headers["Set-Cookie"] {
            let pair = line.prefix { $0 != ";" }.split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2 { cookies[pair[0]] = pair[1] }
        }
    }

    private var session: [(String, String)] {
        [("Cookie", cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")), ("X-CSRF-TOKEN", cookies["csrf_access_token"] ?? "")]
    }

    /// A new OAuth2 app of the user's: its number, client id and secret.
    func registerApp(redirect: String) async throws -> (number: Int, id: String, secret: String) {
        let body = JSONValue.object(["client_name": .string("MoonRunner"), "client_uri": .string("http://pi.local:8080"),
                                     "redirect_uris": .array([.string(redirect)]), "scope": .string(FitTrackeeTarget.scope),
                                     "client_description": .string("")]).serialized
        let r = try await http.send(.POST, base + "/api/oauth/apps", headers: session + [("Content-Type", "application/json")],
                                    body: Array(body.utf8))
        guard let client = r.json?["data"]?["client"], let number = client["id"]?.double, let id = client["client_id"]?.text,
              let secret = client["client_secret"]?.text else {
            throw SpawnError("app: \(r.status) \(r.text)")
        }
        return (Int(number), id, secret)
    }

    /// Approves the authorization page at `url` (the upload service's link): the redirect's query.
    func approve(_ url: String) async throws -> [String: String] {
        guard let query = url.split(separator: "?", maxSplits: 1).last else { throw SpawnError("no query in \(url)") }
        var fields = URLText.parameters(query)
        fields["confirm"] = "true"
        let r = try await http.send(.POST, base + "/api/oauth/authorize",
                                    headers: session + [("Content-Type", "application/x-www-form-urlencoded")],
                                    body: HTTP.form(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
        guard let redirect = r.json?["redirect_url"]?.text, let back = redirect.split(separator: "?", maxSplits: 1).last else {
            throw SpawnError("authorize: \(r.status) \(r.text)")
        }
        return URLText.parameters(back)
    }

    /// Revokes every token of the app, as "revoke" on FitTrackee's apps page.
    func revoke(appID: Int) async throws {
        let r = try await http.send(.POST, base + "/api/oauth/apps/\(appID)/revoke", headers: session)
        guard r.status == 200 else { throw SpawnError("revoke: \(r.status) \(r.text)") }
    }
}
