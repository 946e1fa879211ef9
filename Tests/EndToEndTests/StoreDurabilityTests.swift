import Foundation
import MoonRunnerCore
import MoonRunnerProtocol
import MoonRunnerStore
import Testing

/// Trials: a few in `make test`, 100 in `make soak` (MOONRUNNER_SOAK=1).
let durabilityTrials = ProcessInfo.processInfo.environment["MOONRUNNER_SOAK"] == "1" ? 100 : 8

/// Keeps a client busy with reads (?SESSIONS, ?SESSION, ?EXPORT) so that kills also land during them.
final class BusyReader: @unchecked Sendable {
    private let socket: String
    private let lock = NSLock()
    private var running = true
    private(set) var replies = 0
    private(set) var exports = 0

    init(socket: String) {
        self.socket = socket
        Thread.detachNewThread { [self] in loop() }
    }

    func stop() { lock.lock(); running = false; lock.unlock() }
    private var isRunning: Bool { lock.lock(); defer { lock.unlock() }; return running }

    private func loop() {
        while isRunning {
            // The daemon is being killed and restarted: try again 20 ms later.
            guard let c = try? RawClient(path: socket) else { usleep(20_000); continue }
            _ = try? c.readLine()
            let requests = ["?SESSIONS={\"limit\":50};\n", "?SESSION={\"id\":1};\n",
                            "?EXPORT={\"id\":1,\"format\":\"gpx\"};\n"]
            reading: for i in 0..<60 where isRunning {
                c.send(requests[i % requests.count])
                guard let reply = try? c.readLine() else { break }
                // An export streams: EXPORT announces how many EXPORT_DATA lines follow.
                let object = try? JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any]
                if let chunks = (object?["chunks"] as? NSNumber)?.intValue {
                    for _ in 0..<chunks where (try? c.readLine()) == nil { break reading }
                    lock.lock(); exports += 1; lock.unlock()
                }
                lock.lock(); replies += 1; lock.unlock()
            }
        }
    }
}

@Suite("Store durability (kill -9, torn WAL)", .serialized)
struct StoreDurabilityTests {
    /// kill -9 at random moments; after each restart the database opens, no
    /// session is lost, and every point seen committed before the kill is there.
    @Test("kill -9 at random moments never loses a session or a committed point")
    func killNineTrials() async throws {
        let rig = try Rig("k9trials")
        try rig.startGPS(epochsPerSecond: 5, loop: true)
        let config = "store:\n  commit_interval_s: 2\n"
        var rng = SystemRandomNumberGenerator()
        var unreadable = 0, lostSessions = 0, lostPoints = 0, worstLoss = 0.0  // worstLoss in points (1 Hz fixes)
        var readerReplies = 0, readerExports = 0
        var knownSessions = Set<Int64>()
        for trial in 0..<durabilityTrials {
            try rig.startDaemon(speed: 5, config: config, loop: true)
            let s0 = try rig.status()
            if s0.state == .idle || s0.state == .stopped {
                #expect(try rig.cli("start").status == 0)
            }
            // Sometimes start a new session mid-way, so there are several to lose.
            if trial % 4 == 3 {
                _ = try rig.cli("stop")
                #expect(try rig.cli("start").status == 0)
            }
            let reader = trial % 2 == 0 ? BusyReader(socket: rig.socket) : nil
            // The random wait is the test: kills land anywhere in the 2 s commit cycle (0.3–1.8 s).
            try await Task.sleep(for: .milliseconds(Int.random(in: 300...1800, using: &rng)))
            let store = try SessionStore(directory: rig.state.path)
            let sessionsBefore = try await store.sessions(limit: 1000).map(\.id)
            knownSessions.formUnion(sessionsBefore)
            let current = try rig.status().session
            var pointsBefore: [TrackPoint] = []
            if let id = current { pointsBefore = try await store.points(session: id) }
            // What the engine had accepted just before the kill (SESSION's live stats).
            let acceptedAtKill = try current.map { try rig.session($0).stats.points } ?? 0
            rig.daemon?.signal(SIGKILL)
            _ = rig.daemon?.wait(timeout: 5)
            reader?.stop()
            readerReplies += reader?.replies ?? 0
            readerExports += reader?.exports ?? 0

            // The database opens and passes quick_check (SessionStore runs it).
            let after: SessionStore
            do {
                after = try SessionStore(directory: rig.state.path)
                if after.recoveredFromDamage != nil { unreadable += 1 }
            } catch {
                unreadable += 1
                continue
            }
            let ids = Set(try await after.sessions(limit: 1000).map(\.id))
            lostSessions += knownSessions.subtracting(ids).count
            if let id = current {
                let pts = try await after.points(session: id)
                if pts.count < pointsBefore.count || zip(pts, pointsBefore).contains(where: { $0.time != $1.time }) {
                    lostPoints += 1
                }
                worstLoss = max(worstLoss, Double(acceptedAtKill - pts.count))
            }
        }
        print("kill -9 trials: \(durabilityTrials), unreadable databases: \(unreadable), lost sessions: \(lostSessions), "
              + "trials losing committed points: \(lostPoints), "
              + "worst loss: \(Int(worstLoss)) accepted points not yet committed (1 Hz fixes, commit every 2 s); "
              + "reads served around the kills: \(readerReplies), of them exports: \(readerExports)")
        #expect(readerExports > 0, "no ?EXPORT was served while the daemon was being killed")
        #expect(unreadable == 0)
        #expect(lostSessions == 0)
        #expect(lostPoints == 0)
        // At most what arrived within the commit interval (2 s at 1 Hz) plus the
        // fixes accepted between the last status and the kill (speed 5: ~0.5 s).
        #expect(worstLoss <= 4)
        // And the last restart recovers the open session.
        try rig.startDaemon(speed: 5, config: config, loop: true)
        let s = try rig.waitFor(timeout: 20, "recording again") { $0.state == .recording || $0.state == .autoPaused }
        #expect(s.session != nil)
    }

    /// After a kill, the journal is cut at a random byte: the store still
    /// opens, holds a consistent prefix of what was written, and the daemon
    /// records on.
    @Test("a torn journal leaves a readable, consistent store and the daemon records on")
    func tornJournalTrials() async throws {
        let rig = try Rig("torn")
        try rig.startGPS(epochsPerSecond: 20, loop: true)
        let config = "store:\n  commit_interval_s: 0.5\n"
        var rng = SystemRandomNumberGenerator()
        var failures: [String] = []
        var tornJournals = 0
        for trial in 0..<durabilityTrials {
            try rig.startDaemon(speed: 20, config: config, loop: true)
            let st = try rig.status()
            if st.state == .idle || st.state == .stopped { #expect(try rig.cli("start").status == 0) }
            // The random wait is the test: kills land anywhere among the 0.5 s commits (0.4–1.5 s).
            try await Task.sleep(for: .milliseconds(Int.random(in: 400...1500, using: &rng)))
            rig.daemon?.signal(SIGKILL)
            _ = rig.daemon?.wait(timeout: 5)

            // Tear the journal (what commits write) at a random byte. SQLite's own rollback
            // journal is not torn: it is synced whole before the database is written, so a cut
            // finds it whole or not yet hot (vm-check cuts the power under both).
            let journal = rig.state.appendingPathComponent(SessionStore.journalName).path
            for file in [journal] {
                // The journal is preallocated (zeros past its records): cut where something was written.
                let size = file == journal ? Self.writtenLength(file) : Self.fileSize(file)
                if size > 0 {
                    let cut = Int.random(in: 0..<size, using: &rng)
                    if truncate(file, off_t(cut)) != 0 { failures.append("trial \(trial): truncate failed") }
                    if file == journal { tornJournals += 1 }
                }
            }
            do {
                let store = try SessionStore(directory: rig.state.path)
                if let damage = store.recoveredFromDamage { failures.append("trial \(trial): \(damage)") }
                for s in try await store.sessions(limit: 1000) {
                    let pts = try await store.points(session: s.id)
                    // A consistent prefix: points in time order, the row's summary no
                    // further than its points, the snapshot decodable (sessions() decoded it).
                    if zip(pts, pts.dropFirst()).contains(where: { $0.time > $1.time }) {
                        failures.append("trial \(trial): session \(s.id) points out of order")
                    }
                    if let last = pts.last, last.time > s.updatedAt + 0.001 {
                        failures.append("trial \(trial): session \(s.id) has points after its last commit")
                    }
                }
            } catch {
                failures.append("trial \(trial): cannot open: \(error)")
                continue
            }
            // The daemon opens it and records on.
            try rig.startDaemon(speed: 20, config: config, loop: true)
            let before = try rig.status()
            if before.state == .idle || before.state == .stopped { _ = try rig.cli("start") }
            let on = try? rig.waitFor(timeout: 15, "recording on") { ($0.state == .recording || $0.state == .autoPaused) && $0.elapsedS > before.elapsedS }
            if on == nil { failures.append("trial \(trial): the daemon did not record on") }
            rig.daemon?.signal(SIGKILL)
            _ = rig.daemon?.wait(timeout: 5)
        }
        print("torn journal trials: \(durabilityTrials) (\(tornJournals) journals torn), failures: \(failures.count)")
        #expect(tornJournals > 0, "no journal was there to tear")
        #expect(failures.isEmpty, "\(failures)")
    }

    static func fileSize(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    /// Bytes up to the last one that is not zero.
    static func writtenLength(_ path: String) -> Int {
        guard let data = FileManager.default.contents(atPath: path) else { return 0 }
        return (data.lastIndex { $0 != 0 } ?? -1) + 1
    }
}
