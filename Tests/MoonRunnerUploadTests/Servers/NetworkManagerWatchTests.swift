import Foundation
import MoonRunnerTestSupport
import Testing
@testable import MoonRunnerUpload

/// A dbus-daemon of the test's own as the system bus, and Tests/Tools/nm_standin.py
/// on it as NetworkManager (its D-Bus API as Debian 12's 1.42 has it), steered by a FIFO.
final class PrivateNetworkManager: @unchecked Sendable {
    let dir: String
    let address: String
    let fifo: String
    private var children: [Child] = []

    static let busConfig = """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>system</type>
          <listen>unix:path=SOCKET</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow user="*"/>
            <allow own="*"/>
            <allow send_destination="*"/>
            <allow receive_sender="*"/>
          </policy>
        </busconfig>
        """

    init() async throws {
        guard let dbus = ServerTools.find("dbus-daemon", venv: false), let python = ServerTools.python else {
            throw SpawnError("dbus-daemon or python3 is not installed")
        }
        dir = try ServerTools.scratch("nm")
        address = "unix:path=\(dir)/system_bus"
        fifo = dir + "/commands"
        try Self.busConfig.replacingOccurrences(of: "SOCKET", with: dir + "/system_bus")
            .write(toFile: dir + "/bus.conf", atomically: true, encoding: .utf8)
        children.append(try Child(dbus, ["--config-file", dir + "/bus.conf", "--nofork", "--nopidfile"],
                                  log: URL(fileURLWithPath: dir + "/bus.log")))
        try await Self.until(20, "the private bus") { FileManager.default.fileExists(atPath: self.dir + "/system_bus") }
        guard mkfifo(fifo, 0o600) == 0 else { throw SpawnError("mkfifo failed") }
        let nm = try Child(python, [ServerTools.tools + "/nm_standin.py", "--commands", fifo],
                           log: URL(fileURLWithPath: dir + "/nm.log"), env: ["DBUS_SYSTEM_BUS_ADDRESS": address])
        children.append(nm)
        try await Self.until(20, "NetworkManager's stand-in") { nm.log.contains("\"ready\"") }
    }

    deinit {
        for child in children.reversed() {
            child.signal(SIGKILL)
            _ = child.wait(timeout: 5)
        }
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// `up SSID` or `down`, as the stand-in takes them.
    func say(_ command: String) throws {
        let fd = open(fifo, O_WRONLY)
        guard fd >= 0 else { throw SpawnError("cannot open \(fifo)") }
        defer { close(fd) }
        let bytes = Array((command + "\n").utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else { throw SpawnError("short write to \(fifo)") }
    }

    static func until(_ seconds: Double, _ what: @autoclosure () -> String, _ condition: @escaping () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { throw SpawnError("\(what()) did not come up in \(seconds) s") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}

/// What the watch reported, in order.
final class Views: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [NetworkView] = []
    func add(_ v: NetworkView) { lock.withLock { seen.append(v) } }
    var all: [NetworkView] { lock.withLock { seen } }
}

@Suite("The network's name, read from NetworkManager's D-Bus API (a stand-in on a private bus)", .serialized,
       .enabled(if: ServerTools.find("dbus-daemon", venv: false) != nil && ServerTools.ready(ServerTools.python, imports: ["dbus_fast"]),
                "needs dbus-daemon (apt-get install dbus) and dbus_fast (pip install dbus-fast)"))
struct NetworkManagerWatchTests {
    @Test("the watch reports the Wi-Fi joined by its SSID and each change NetworkManager signals; the home rule follows")
    func follows() async throws {
        let nm = try await PrivateNetworkManager()
        let views = Views()
        let watch = NetworkManagerWatch(address: nm.address)
        watch.start { views.add($0) }
        defer { watch.stop() }
        let down = NetworkView(up: false, names: [])
        try await PrivateNetworkManager.until(10, "the first view") { views.all.count == 1 }
        #expect(views.all == [down], "NetworkManager starts disconnected (State 20)")
        try nm.say("up home-5G")
        try await PrivateNetworkManager.until(10, "the home Wi-Fi") { views.all.count == 2 }
        try nm.say("up Pixel hotspot")
        try await PrivateNetworkManager.until(10, "the hotspot (\(views.all))") { views.all.count == 3 }
        try nm.say("down")
        try await PrivateNetworkManager.until(10, "the network gone") { views.all.count == 4 }
        #expect(views.all == [down, NetworkView(up: true, names: ["home-5G"]), NetworkView(up: true, names: ["Pixel hotspot"]), down])
        let rule = NetworkRule(networks: ["home-5G"])
        #expect(views.all.map(rule.allows) == [false, true, false, false], "only the listed home network allows uploads")
    }
}
