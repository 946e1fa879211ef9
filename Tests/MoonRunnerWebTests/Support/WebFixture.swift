import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import MoonRunnerCore
import MoonRunnerExport
import MoonRunnerWeb
import NIOCore
import ServiceLifecycle
import Testing

/// A recorded run built in code: 20 minutes out along a street at about
/// 3 m/s, a 60 s pause, a 40 s GPS outage (no fixes, then a new stretch),
/// 1 Hz points with altitude and a cadence each second.
enum WebFixture {
    static let start = 1_714_548_600.0  // 2024-05-01T07:30:00Z

    static func session(id: Int64 = 12, minutes: Double = 20) -> ExportSession {
        var points: [TrackPoint] = []
        var steps: [StepSecondSample] = []
        let plane = LocalTangentPlane(originLat: 51.5, originLon: -0.16)
        var east = 0.0, distance = 0.0
        let pause = 500.0...560.0, outage = 800.0...840.0
        var newStretch = false
        for t in stride(from: 0.0, through: minutes * 60, by: 1) {
            if pause.contains(t) || outage.contains(t) {
                newStretch = true
                continue
            }
            let speed = 3.0 + 0.5 * sin(t / 60)
            if !points.isEmpty && !newStretch {
                east += speed
                distance += speed
            }
            let (lat, lon) = plane.unproject(east: east, north: 40 * sin(east / 300))
            points.append(TrackPoint(time: start + t, fixTime: start + t, latitude: lat, longitude: lon,
                                     altitude: 30 + 10 * sin(east / 500), speed: speed, course: 90, eph: 5,
                                     newSegment: newStretch, distance: distance))
            newStretch = false
            steps.append(StepSecondSample(second: Int64(start + t), steps: 3, cadence: 165 + 5 * sin(t / 90)))
        }
        var stats = SessionStats()
        stats.activity = .run
        stats.startTime = start
        stats.elapsed = minutes * 60
        stats.moving = minutes * 60 - 60
        stats.distance = distance
        stats.steps = steps.reduce(0) { $0 + $1.steps }
        stats.maxSpeed = 3.5
        stats.elevationGain = 12
        stats.elevationLoss = 9
        stats.points = points.count
        let events = [
            SessionEvent(kind: .start, time: start, detectedAt: start, cause: "command", state: .recording),
            SessionEvent(kind: .pause, time: start + 500, detectedAt: start + 500, cause: "command", state: .paused),
            SessionEvent(kind: .resume, time: start + 561, detectedAt: start + 561, cause: "command", state: .recording),
            SessionEvent(kind: .gpsLost, time: start + 805, detectedAt: start + 805, cause: "gps", state: .recording),
            SessionEvent(kind: .gpsRegained, time: start + 841, detectedAt: start + 841, cause: "gps", state: .recording),
            SessionEvent(kind: .stop, time: start + minutes * 60, detectedAt: start + minutes * 60, cause: "command",
                         state: .stopped),
        ]
        return ExportSession(id: id, activity: .run, startTime: start, stats: stats, points: points, events: events,
                             pauses: [PauseInterval(start: start + 500, end: start + 561, detectedAt: start + 500, automatic: false)],
                             stepSeconds: steps, calorieModel: CalorieModel(bodyMass: 70))
    }
}

/// A web app over a fake daemon, in a private folder, with its clock passed in.
struct TestWeb {
    let daemon: FakeDaemon
    let devices: DeviceStore
    let feed: StatusFeed
    let dir: URL
    let link: any DaemonLink
    /// The upload service's link (nil: the socket in the settings, which no test runs).
    let uploads: (any DaemonLink)?
    let settings: WebSettings
    static let origin = "http://localhost"

    init(daemon: FakeDaemon = FakeDaemon(sessions: [WebFixture.session()]), link: (any DaemonLink)? = nil,
         uploads: (any DaemonLink)? = nil, settings: WebSettings = WebSettings(),
         now: @escaping @Sendable () -> Double = { 1_714_548_600 }) throws {
        self.daemon = daemon
        self.uploads = uploads
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("mrweb-\(UUID().uuidString)")
        devices = try DeviceStore(directory: dir.path, now: now)
        let link = link ?? FakeDaemonLink(daemon: daemon)
        self.link = link
        feed = StatusFeed(link: link, reconnects: false)
        var s = settings
        s.stateDir = dir.path
        self.settings = s
    }

    func cleanUp() { try? FileManager.default.removeItem(at: dir) }

    /// Runs `body` with a router test client (no socket).
    func test<T: Sendable>(_ body: @escaping @Sendable (any TestClientProtocol) async throws -> T) async throws -> T {
        defer { cleanUp() }
        let app = try await buildApplication(settings: settings, link: link, devices: devices, feed: feed, adminSocket: false, uploads: uploads)
        return try await app.test(.router) { client in try await body(client) }
    }

    /// Runs `body` against the app listening on a free loopback port (real
    /// HTTP, the server as `moonrunner-web` runs it, without its signals).
    func live<T: Sendable>(_ body: @escaping @Sendable (Int) async throws -> T) async throws -> T {
        defer { cleanUp() }
        var s = settings
        s.host = "127.0.0.1"
        s.port = try Self.freePort()
        let app = try await buildApplication(settings: s, link: link, devices: devices, feed: feed, adminSocket: false, uploads: uploads)
        let group = ServiceGroup(configuration: .init(services: [app], logger: Logger(label: "test")))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            defer { tasks.cancelAll() }
            var up = false
            for _ in 0..<200 where !up {
                up = (try? RawHTTP(port: s.port)) != nil
                if !up { try await Task.sleep(for: .milliseconds(25)) }
            }
            guard up else { throw TestFailure("the server did not listen on \(s.port) within 5 s") }
            let value = try await body(s.port)
            await group.triggerGracefulShutdown()
            return value
        }
    }

    /// A loopback TCP port nobody listens on now.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        guard ok else { throw TestFailure("no free port") }
        return Int(UInt16(bigEndian: addr.sin_port))
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// Requests as a phone sends them.
extension TestClientProtocol {
    /// Pairs through `POST /pair` with a fresh code; returns the cookie header value.
    func pair(_ devices: DeviceStore) async throws -> String {
        let (code, _) = await devices.issueCode()
        return try await post("/pair", ["code": code, "name": "test phone"], cookie: nil) { response in
            #expect(response.status == .seeOther, "pairing with a fresh code redirects to the run screen")
            let set = response.headers[.setCookie] ?? ""
            return String(set.split(separator: ";").first ?? "")
        }
    }

    func get<T>(_ uri: String, cookie: String?, headers extra: HTTPFields = [:],
                _ check: @escaping (TestResponse) async throws -> T) async throws -> T {
        var headers: HTTPFields = [.accept: "text/html"]
        if let cookie { headers[.cookie] = cookie }
        for f in extra { headers[f.name] = f.value }
        return try await execute(uri: uri, method: .get, headers: headers, testCallback: check)
    }

    func post<T>(_ uri: String, _ fields: [String: String], cookie: String?, origin: String? = TestWeb.origin,
                 _ check: @escaping (TestResponse) async throws -> T) async throws -> T {
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded", .accept: "text/html"]
        if let cookie { headers[.cookie] = cookie }
        if let origin { headers[.origin] = origin }
        let body = fields.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
            .joined(separator: "&")
        return try await execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: body), testCallback: check)
    }

    /// The CSRF token of the page at `uri`.
    func csrf(_ uri: String = "/", cookie: String) async throws -> String {
        try await get(uri, cookie: cookie) { response in
            let html = String(buffer: response.body)
            guard let r = html.range(of: "name=\"csrf\" value=\"") else { return "" }
            return String(html[r.upperBound...].prefix { $0 != "\"" })
        }
    }
}
