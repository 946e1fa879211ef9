import Foundation
import HTTPTypes
import HummingbirdTesting
import MoonRunnerProtocol
import MoonRunnerSocket
import Testing
@testable import MoonRunnerWeb

@Suite("Web: pairing and who may use it")
struct PairingTests {
    @Test("an unpaired browser gets the pairing page with 401 for a page, and a bare 401 for anything else")
    func unpaired() async throws {
        let web = try TestWeb()
        try await web.test { client in
            for path in ["/", "/sessions", "/sessions/12", "/courses", "/badges", "/settings"] {
                try await client.get(path, cookie: nil) { r in
                    #expect(r.status == .unauthorized, "\(path)")
                    #expect(String(buffer: r.body).contains("action=\"/pair\""), "\(path) shows the pairing form")
                }
            }
            for path in ["/live", "/sessions/12/export.gpx", "/ping"] {
                try await client.get(path, cookie: nil, headers: [.accept: "*/*"]) { r in
                    #expect(r.status == .unauthorized, "\(path)")
                    #expect(!String(buffer: r.body).contains("<html"), "\(path) is not a page")
                }
            }
            try await client.post("/session/pause", [:], cookie: nil) { r in #expect(r.status == .unauthorized) }
            try await client.get("/pair", cookie: nil) { r in #expect(r.status == .ok) }
            try await client.get("/static/site.css", cookie: nil) { r in #expect(r.status == .ok) }
        }
        #expect(web.daemon.stateChanges.isEmpty)
    }

    @Test("a code pairs a phone once: an HttpOnly SameSite=Strict cookie, and the same code fails the second time")
    func pairOnce() async throws {
        let web = try TestWeb()
        try await web.test { client in
            let (code, lifetime) = await web.devices.issueCode()
            #expect(lifetime == 600)
            let cookie = try await client.post("/pair", ["code": code, "name": "Pixel"], cookie: nil) { r in
                #expect(r.status == .seeOther)
                #expect(r.headers[.location] == "/")
                let set = r.headers[.setCookie] ?? ""
                #expect(set.contains("HttpOnly") && set.contains("SameSite=Strict") && set.contains("Path=/"), "\(set)")
                return String(set.split(separator: ";").first ?? "")
            }
            try await client.get("/", cookie: cookie) { r in #expect(r.status == .ok) }
            try await client.post("/pair", ["code": code, "name": "again"], cookie: nil) { r in
                #expect(r.status == .forbidden, "a spent code pairs nothing")
            }
        }
        let devices = await web.devices.list()
        #expect(devices.map(\.name) == ["Pixel"])
    }

    @Test("the device token is stored only as its SHA-256, in a file only the web app's user can read")
    func hashedToken() async throws {
        let web = try TestWeb()
        let cookie = try await web.test { client in try await client.pair(web.devices) }
        // (cleanUp ran: pair again in a store of our own to look at the file)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mrweb-hash-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try DeviceStore(directory: dir.path)
        let (code, _) = await store.issueCode()
        guard case let .success((device, token)) = await store.pair(code: code, name: "x", address: "10.0.0.2") else {
            Issue.record("pairing failed")
            return
        }
        let file = try String(contentsOf: dir.appendingPathComponent("devices.json"), encoding: .utf8)
        #expect(!file.contains(token), "the token itself is never written")
        #expect(file.contains(DeviceStore.hash(token)) && device.tokenSHA256 == DeviceStore.hash(token))
        let attributes = try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent("devices.json").path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(cookie.hasPrefix("mr_device="))
    }

    @Test("a pairing code expires 10 minutes after it was issued")
    func expiry() {
        var codes = PairingCodes(lifetime: 600)
        var rng = FixedRandom()
        let a = codes.issue(at: 1000, using: &rng)
        let b = codes.issue(at: 1000, using: &rng)
        #expect(codes.redeem(a, at: 1599) == true)
        #expect(codes.redeem(b, at: 1600) == false, "at 600 s it is gone")
        #expect(codes.outstanding(at: 1600) == 0)
    }

    @Test("a typed code may have dashes, spaces, lower case, O for 0 and I or L for 1")
    func typedCode() {
        #expect(PairingCodes.normalise("k7qm-2xpa-9f") == "K7QM2XPA9F")
        #expect(PairingCodes.normalise("K7QM 2XPA 9F") == "K7QM2XPA9F")
        #expect(PairingCodes.normalise("O1LI-0000-00") == "0111000000")
        #expect(PairingCodes.normalise("K7QM-2XPA") == nil, "too short")
        #expect(PairingCodes.normalise("K7QM-2XPA-9U") == nil, "U is not in the alphabet")
    }

    @Test("wrong codes from one address wait 1, 2, 4 s before the next try; other addresses and a right code are not held up")
    func throttle() {
        var t = PairingThrottle()
        #expect(t.wait(for: "10.0.0.9", at: 0) == 0)
        t.failed("10.0.0.9", at: 0)
        #expect(t.wait(for: "10.0.0.9", at: 0) == 1)
        t.failed("10.0.0.9", at: 1)
        #expect(t.wait(for: "10.0.0.9", at: 1) == 2)
        t.failed("10.0.0.9", at: 3)
        #expect(t.wait(for: "10.0.0.9", at: 3) == 4)
        #expect(t.wait(for: "10.0.0.7", at: 3) == 0, "another address is not held up")
        for k in 0..<20 { t.failed("10.0.0.9", at: 10 + Double(k)) }
        #expect(t.wait(for: "10.0.0.9", at: 29) == 300, "the wait stops growing at 5 minutes")
        t.succeeded("10.0.0.9")
        #expect(t.wait(for: "10.0.0.9", at: 29) == 0)
    }

    @Test("the throttle remembers a bounded number of addresses")
    func throttleBounded() {
        var t = PairingThrottle(capacity: 4)
        for k in 0..<10 { t.failed("10.0.0.\(k)", at: Double(k)) }
        #expect(t.remembered == 4)
    }

    @Test("after a wrong code the same address gets 429 with Retry-After until its wait is over; a paired phone there is not held up")
    func backoffOverHTTP() async throws {
        let clock = ClockBox(1000)
        let web = try TestWeb(now: { clock.now })
        try await web.test { client in
            let paired = try await client.pair(web.devices)
            for _ in 0..<3 {
                try await client.post("/pair", ["code": "AAAA-AAAA-AA"], cookie: nil) { r in
                    #expect(r.status == .forbidden || r.status == .tooManyRequests)
                }
            }
            try await client.get("/", cookie: paired) { r in #expect(r.status == .ok, "the paired phone from that address") }
            clock.now += 10
            // The second wrong code (the tries while waiting do not count): the next wait is 2 s.
            try await client.post("/pair", ["code": "AAAA-AAAA-AA"], cookie: nil) { r in #expect(r.status == .forbidden) }
            let (code, _) = await web.devices.issueCode()
            try await client.post("/pair", ["code": code], cookie: nil) { r in
                #expect(r.status == .tooManyRequests)
                #expect(r.headers[.retryAfter] == "2")
            }
            clock.now += 2
            try await client.post("/pair", ["code": code], cookie: nil) { r in #expect(r.status == .seeOther) }
        }
    }

    @Test("pairing needs the Origin of this server")
    func pairingOrigin() async throws {
        let web = try TestWeb()
        try await web.test { client in
            let (code, _) = await web.devices.issueCode()
            try await client.post("/pair", ["code": code], cookie: nil, origin: "http://evil.example") { r in
                #expect(r.status == .forbidden)
            }
            try await client.post("/pair", ["code": code], cookie: nil, origin: nil) { r in #expect(r.status == .forbidden) }
        }
        #expect(await web.devices.list().isEmpty)
    }

    @Test("a revoked phone is refused at its next request and its live stream ends at once")
    func revoke() async throws {
        let daemon = FakeDaemon(watch: [FakeDaemon.status(.init())], holdWatch: true)
        let web = try TestWeb(daemon: daemon)
        let feed = web.feed
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            let id = await web.devices.list()[0].id
            let subscription = await feed.subscribe(device: id)
            #expect(await feed.watchers >= 1)
            #expect(try await web.devices.revoke(id: id)?.id == id)
            // The watch stays open, so only the revocation can end this stream; within 2 s or the test fails.
            let ended = try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    for await _ in subscription.items {}
                    return true
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(2))
                    return false
                }
                let first = try await group.next() ?? false
                group.cancelAll()
                return first
            }
            #expect(ended, "the revoked device's live stream ended")
            try await client.get("/", cookie: cookie) { r in #expect(r.status == .unauthorized) }
            try await client.get("/ping", cookie: cookie, headers: [.accept: "*/*"]) { r in #expect(r.status == .unauthorized) }
        }
    }

    @Test("the admin socket serves root, its own user and the admin group; anyone else is forbidden")
    func adminPolicy() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mrweb-admin-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let devices = try DeviceStore(directory: dir.path)
        var settings = WebSettings()
        settings.host = "127.0.0.1"
        settings.port = 8123
        settings.adminGroup = "no-such-group-here"
        let server = AdminServer(settings: settings, devices: devices, logger: .init(label: "test"))
        let policy = PeerPolicy(controlGroup: settings.adminGroup)
        let stranger = PeerCredentials(pid: 1, uid: 54321, gid: 54321)
        let me = PeerCredentials(pid: 1, uid: geteuid(), gid: getegid())
        let refused = await server.answer("?PAIR;", peer: stranger, policy: policy)
        #expect(ReplyEncoder.replyClass(of: refused) == "ERROR" && refused.contains("forbidden"))
        let pairing = try ReplyEncoder.decode(PairingReply.self, from: await server.answer("?PAIR;", peer: me, policy: policy))
        #expect(pairing.urls == ["http://127.0.0.1:8123/pair?code=\(pairing.code.replacingOccurrences(of: "-", with: ""))"])
        #expect(pairing.expiresInS == 600)
        let list = try ReplyEncoder.decode(DevicesReply.self, from: await server.answer("?DEVICES;", peer: me, policy: policy))
        #expect(list.devices.isEmpty)
        let missing = await server.answer("?REVOKE={\"id\":\"9\"};", peer: me, policy: policy)
        #expect(missing.contains("not_found"))
        let garbage = await server.answer("?PAIRS;", peer: me, policy: policy)
        #expect(garbage.contains("unknown_command"))
    }

    @Test("admin requests round-trip through their wire form")
    func adminWire() throws {
        for r in [WebAdminRequest.pair, .devices, .revoke(id: "12")] {
            #expect(try WebAdminRequest.parse(r.line) == r)
        }
        #expect(try WebAdminRequest.parse("?revoke={\"id\":3};") == .revoke(id: "3"))
        #expect(throws: RequestError.self) { try WebAdminRequest.parse("?REVOKE;") }
        #expect(throws: RequestError.self) { try WebAdminRequest.parse("?PAIR={\"x\":1};") }
    }
}

/// The same "random" bytes every time.
struct FixedRandom: RandomNumberGenerator {
    var state: UInt64 = 7
    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state
    }
}

/// A clock a test moves by hand.
final class ClockBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Double
    init(_ v: Double) { value = v }
    var now: Double {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
