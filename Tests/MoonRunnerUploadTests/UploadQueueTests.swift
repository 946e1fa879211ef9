import Foundation
import MoonRunnerProtocol
import Testing
@testable import MoonRunnerUpload

@Suite("Upload queue: each finished session reaches each target once")
struct UploadQueueTests {
    @Test("a stopped session is queued once per connected target and sent once")
    func once() async throws {
        let rig = try QueueRig()
        await rig.source.add(1)
        await rig.queue.catchUp()
        await rig.queue.catchUp()
        await rig.work(times: 3, passing: 60)
        #expect(await rig.service.activities.count == 1)
        let job = try #require(try rig.job(1))
        #expect(job.state == .done)
        #expect(job.remoteID == "a1")
        #expect(try rig.ledger.jobs().count == 1)
    }

    @Test("a target connected after three runs gets the newest and every later one, not the history before it")
    func fromConnection() async throws {
        let rig = try QueueRig()
        for id: Int64 in [1, 2, 3] { await rig.source.add(id) }
        await rig.queue.catchUp()
        #expect(try rig.ledger.jobs().map(\.session) == [3])
        await rig.source.add(4)
        await rig.queue.catchUp()
        #expect(try rig.ledger.jobs().map(\.session) == [4, 3])
        #expect(try rig.ledger.credential(.intervals)?.fromSession == 3, "kept: a restart does not send the history either")
    }

    @Test("a server that fails three times and then accepts makes one activity, after waits of 5, 10 and 20 s")
    func threeFailures() async throws {
        let rig = try QueueRig()
        await rig.service.fail([.server("500"), .server("500"), .server("500")])
        await rig.source.add(1)
        await rig.queue.catchUp()
        var waits: [Double] = []
        for _ in 0..<4 {
            await rig.queue.workDue()
            if let j = try rig.job(1), j.state != .done { waits.append(j.nextAt - rig.clock.now) ; rig.clock.advance(j.nextAt - rig.clock.now) }
        }
        #expect(waits == [5, 10, 20])
        // A 5xx leaves the job in doubt (a proxy may fail after the service took the file): each retry looks first.
        #expect(await rig.service.tally() == Tally(made: 1, sends: 4, finds: 3))
        let job = try #require(try rig.job(1))
        #expect(job.state == .done)
        #expect(job.attempts == 4)
    }

    @Test("an answer lost after the service took the file: the retry finds it there and sends nothing")
    func lostAnswer() async throws {
        let rig = try QueueRig()
        await rig.service.lose(1)
        await rig.source.add(1)
        await rig.queue.catchUp()
        await rig.work(times: 1, passing: 5)
        #expect(try rig.job(1)?.state == .sending, "in doubt, not queued")
        await rig.work(times: 1, passing: 5)
        #expect(await rig.service.tally() == Tally(made: 1, sends: 1, finds: 1))
        #expect(try rig.job(1)?.state == .done)
    }

    @Test("a process killed after sending (the ledger says sending) looks before sending again")
    func killedAfterSend() async throws {
        let rig = try QueueRig()
        await rig.source.add(1)
        await rig.queue.catchUp()
        await rig.work()
        var job = try #require(try rig.job(1))
        // What a kill -9 between the request and the answer leaves: the row written before the request.
        job.state = .sending
        job.remoteID = nil
        try rig.ledger.save(job)
        let again = UploadQueue(ledger: rig.ledger, settings: UploadSettings(), targets: [FakeTarget(kind: .intervals, service: rig.service)],
                                source: rig.source, now: { rig.clock.now })
        await again.workDue()
        #expect(await rig.service.tally().made == 1)
        #expect(await rig.service.tally().sends == 1)
        let after = try #require(try rig.job(1))
        #expect(after.state == .done)
        #expect(after.remoteID == "a1")
    }

    @Test("a restart after the file was sent and before the answer was kept: the ledger reopened finds it, sends nothing")
    func restartInDoubt() async throws {
        let rig = try QueueRig()
        await rig.service.lose(1)
        await rig.source.add(1)
        await rig.queue.catchUp()
        await rig.work(times: 1, passing: 5)
        // A new process: the ledger opened afresh from its directory, a new queue over it.
        let ledger = try Ledger(directory: rig.dir)
        #expect(try ledger.job(.intervals, 1)?.inDoubt == true)
        let queue = UploadQueue(ledger: ledger, settings: UploadSettings(), targets: [FakeTarget(kind: .intervals, service: rig.service)],
                                source: rig.source, now: { rig.clock.now })
        await queue.workDue()
        #expect(await rig.service.tally() == Tally(made: 1, sends: 1, finds: 1))
        #expect(try ledger.job(.intervals, 1)?.state == .done)
    }

    @Test("a full disk when the sending mark is written: nothing is sent until the ledger can remember it",
          .enabled(if: getuid() == 0, "mounts a tmpfs: needs root (CI runs make test as root)"))
    func diskFullBefore() async throws {
        let disk = try SmallDisk()
        defer { disk.unmount() }
        let rig = try QueueRig(directory: disk.path)
        await rig.source.add(1)
        await rig.queue.catchUp()
        try disk.fill()
        await rig.work(times: 3, passing: 60)
        #expect(await rig.service.sends == 0, "nothing leaves that the ledger cannot record")
        disk.free()
        await rig.work(times: 3, passing: 900)
        #expect(await rig.service.activities.count == 1)
        #expect(try rig.job(1)?.state == .done)
    }

    @Test("a full disk when the answer is written: the job stays in doubt and the retry finds the activity",
          .enabled(if: getuid() == 0, "mounts a tmpfs: needs root (CI runs make test as root)"))
    func diskFullAfter() async throws {
        let disk = try SmallDisk()
        defer { disk.unmount() }
        let rig = try QueueRig(directory: disk.path)
        await rig.source.add(1)
        await rig.queue.catchUp()
        // The sending mark is written, then the disk fills before the answer is.
        let filling = FillingTarget(inner: FakeTarget(kind: .intervals, service: rig.service), disk: disk)
        let queue = UploadQueue(ledger: rig.ledger, settings: UploadSettings(), targets: [filling], source: rig.source,
                                now: { rig.clock.now })
        await queue.workDue()
        #expect(try rig.job(1)?.state == .sending, "the answer could not be written")
        disk.free()
        rig.clock.advance(900)
        await queue.workDue()
        #expect(await rig.service.tally().made == 1)
        #expect(await rig.service.tally().sends == 1)
        #expect(try rig.job(1)?.state == .done)
    }

    @Test("a session deleted before it is sent is never sent")
    func deleted() async throws {
        let rig = try QueueRig()
        await rig.source.add(1)
        await rig.queue.catchUp()
        await rig.source.delete(1)
        await rig.work(times: 2, passing: 60)
        #expect(await rig.service.sends == 0)
        #expect(try rig.job(1)?.state == .deleted)
    }

    @Test("a refused credential holds the target: no more attempts until it is connected again")
    func refused() async throws {
        let rig = try QueueRig()
        await rig.service.fail([.refused("intervals.icu refused the credential (401); reconnect intervals.icu")])
        await rig.source.add(1)
        await rig.queue.catchUp()
        await rig.work(times: 3, passing: 900)
        #expect(await rig.service.sends == 1)
        #expect(try rig.job(1)?.state == .held)
        #expect(try rig.ledger.credential(.intervals)?.refused?.contains("reconnect") == true)
        try rig.ledger.setCredential(.intervals, Credential(fields: ["api_key": "new", "athlete_id": "i1"], connectedAt: rig.clock.now))
        await rig.queue.connected(.intervals)
        await rig.work()
        #expect(await rig.service.tally().made == 1)
        #expect(try rig.job(1)?.state == .done)
    }

    @Test("while the network does not allow uploads nothing is sent; when it returns everything waiting goes at once")
    func network() async throws {
        let rig = try QueueRig()
        await rig.queue.network(NetworkView(up: false, names: []))
        await rig.source.add(1)
        await rig.queue.catchUp()
        await rig.work(times: 2, passing: 60)
        #expect(await rig.service.sends == 0)
        await rig.queue.network(NetworkView(up: true, names: ["home"]))
        await rig.work()
        #expect(await rig.service.activities.count == 1)
    }
}

/// Passes the request on, then fills the disk before the answer can be written.
struct FillingTarget: UploadTarget {
    let inner: FakeTarget
    let disk: SmallDisk
    var kind: TargetKind { inner.kind }

    func find(_ attempt: UploadAttempt) async throws(UploadFailure) -> UploadOutcome? { try await inner.find(attempt) }

    func send(_ attempt: UploadAttempt) async throws(UploadFailure) -> UploadOutcome {
        let outcome = try await inner.send(attempt)
        try? disk.fill()
        return outcome
    }
}

/// A 1 MiB tmpfs for the ledger, filled to the last byte and freed again: a real ENOSPC for SQLite.
final class SmallDisk: Sendable {
    let path = NSTemporaryDirectory() + "upload-disk-\(UUID().uuidString)"

    init() throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", path]) else {
            throw CocoaError(.fileWriteNoPermission)
        }
    }

    var filler: String { path + "/filler" }

    /// Writes a file until the disk has no byte left.
    func fill() throws {
        let fd = open(filler, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
        defer { close(fd) }
        let block = [UInt8](repeating: 0, count: 4096)
        while write(fd, block, block.count) > 0 {}
        while write(fd, block, 1) > 0 {}
    }

    func free() { unlink(filler) }

    func unmount() {
        _ = Self.run("/bin/umount", ["-l", path])
        try? FileManager.default.removeItem(atPath: path)
    }

    static func run(_ tool: String, _ args: [String]) -> Bool {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args
        do { try p.run() } catch { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }
}

@Suite("Upload queue: one pass at a time")
struct UploadQueueReentryTests {
    @Test("a pass asked for while one is sending does not send the same job again")
    func overlapping() async throws {
        let rig = try QueueRig()
        await rig.service.slow(0.3)
        await rig.source.add(1)
        await rig.queue.catchUp()
        async let first: Void = rig.queue.workDue()
        async let second: Void = rig.queue.workDue()
        _ = await (first, second)
        #expect(await rig.service.tally() == Tally(made: 1, sends: 1, finds: 0))
    }
}
