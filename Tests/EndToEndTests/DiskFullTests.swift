import Foundation
import MoonRunnerProtocol
import MoonRunnerStore
import Testing

@Suite("Disk full", .serialized)
struct DiskFullTests {
    /// The state directory sits on a 1 MiB tmpfs that fills up mid-session:
    /// the daemon keeps recording, says `store: error`, and once space returns
    /// commits everything it held, losing nothing.
    @Test("a full disk: the daemon keeps recording, reports store error, and catches up when space returns",
          .enabled(if: getuid() == 0, "mounts a tmpfs: needs root (CI runs make test as root)"))
    func diskFull() async throws {
        let rig = try Rig("full")
        try FileManager.default.createDirectory(at: rig.state, withIntermediateDirectories: true)
        let mount = try run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", rig.state.path])
        try #require(mount.status == 0, "cannot mount a tmpfs as root: \(mount.err)")
        defer { _ = try? run("/bin/umount", ["-l", rig.state.path]) }

        try rig.startGPS(epochsPerSecond: 20, loop: true)
        // Commits of a few hundred bytes each (the journal's): many of them fill the disk soon.
        try rig.startDaemon(speed: 20, config: "store:\n  commit_interval_s: 0.1\n", loop: true)
        #expect(try rig.cli("start").status == 0)
        // The commits come with the fixes (20 a second here): a filler leaves
        // them a few dozen kilobytes, so that the disk is full in seconds.
        let free = try #require(try FileManager.default.attributesOfFileSystem(forPath: rig.state.path)[.systemFreeSize]
            as? Int)
        let filler = rig.state.appendingPathComponent("filler")
        try Data(count: max(0, free - 48 * 1024)).write(to: filler)
        let full = try rig.waitFor(timeout: 120, "the store to fill up") { $0.store.health == .error }
        #expect(full.store.lastError?.contains("full") == true, "\(String(describing: full.store.lastError))")
        // Still recording while the disk is full.
        let during = try rig.waitFor(timeout: 20, "recording on a full disk") {
            $0.elapsedS > full.elapsedS + 10 && $0.store.pending > full.store.pending
        }
        #expect(during.session == full.session)
        #expect(rig.daemon?.isRunning == true)

        // Space returns.
        try FileManager.default.removeItem(at: filler)
        let grow = try run("/bin/mount", ["-o", "remount,size=64m", rig.state.path])
        try #require(grow.status == 0, "remount failed: \(grow.err)")
        _ = try rig.waitFor(timeout: 30, "the store to recover") { $0.store.health == .ok }
        #expect(try rig.cli("stop").status == 0)
        let id = try #require(during.session)
        let show = try rig.session(id)
        // Every point the engine accepted is in the database.
        #expect(show.points == show.stats.points, "stored \(show.points) of \(show.stats.points)")
        #expect(show.stats.points > 0)
        let store = try SessionStore(directory: rig.state.path)
        #expect(try await store.session(id: id)?.state == .stopped)
    }
}
