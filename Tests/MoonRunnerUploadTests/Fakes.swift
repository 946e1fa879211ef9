import Foundation
import MoonRunnerCore
import MoonRunnerProtocol
@testable import MoonRunnerUpload

/// Time the tests set: the queue never reads a clock of its own.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var t = 1_800_000_000.0
    var now: Double { lock.withLock { t } }
    func advance(_ s: Double) { lock.withLock { t += s } }
}

/// The daemon as the queue sees it: sessions, their files, deletions.
actor FakeSource: SessionSource {
    var list: [SessionInfo] = []
    var files: [Int64: Data] = [:]
    var exports = 0

    func add(_ id: Int64, _ file: Data = Data(".FIT-\(UUID())".utf8)) {
        list.insert(SessionInfo(id: id, activity: "run", state: .stopped, startTime: 1_799_990_000 + Double(id),
                                endTime: 1_799_999_000, distanceM: 5000, elapsedS: 1800, movingS: 1700, steps: 5000,
                                interrupted: false), at: 0)
        files[id] = file
    }

    func delete(_ id: Int64) {
        list.removeAll { $0.id == id }
        files[id] = nil
    }

    func sessions(limit: Int) async throws -> [SessionInfo] { Array(list.prefix(limit)) }

    func export(session: Int64, format: String, zones: [PrivacyZone]) async throws -> ExportResult {
        exports += 1
        guard let f = files[session] else { return .deleted }
        return .file(f)
    }

    /// As the live source: a catch-up on connecting, then nothing until cancelled.
    func watch(_ stopped: @escaping @Sendable () async -> Void) async {
        await stopped()
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(60)) }
    }
}

/// What a fake service saw: activities made, files sent, look-ups made.
struct Tally: Equatable {
    var made: Int
    var sends: Int
    var finds: Int
}

/// A service that remembers what it was sent and fails as it is told.
actor FakeService {
    var activities: [Data] = []
    var failures: [UploadFailure] = []
    /// Take the file, then fail as if the answer was lost.
    var loseAnswers = 0
    var sends = 0
    var finds = 0

    func fail(_ f: [UploadFailure]) { failures = f }
    func tally() -> Tally { Tally(made: activities.count, sends: sends, finds: finds) }
    func lose(_ n: Int) { loseAnswers = n }

    /// Seconds each send takes (the actor is left while it waits, as a real request leaves it).
    var delay = 0.0
    func slow(_ s: Double) { delay = s }

    func take(_ data: Data) async throws(UploadFailure) -> UploadOutcome {
        sends += 1
        if delay > 0 { try? await Task.sleep(for: .seconds(delay)) }
        if !failures.isEmpty { throw failures.removeFirst() }
        activities.append(data)
        if loseAnswers > 0 {
            loseAnswers -= 1
            throw UploadFailure.network("the connection was closed before the answer")
        }
        return .done(id: "a\(activities.count)", url: nil)
    }

    func lookUp(_ data: Data) -> UploadOutcome? {
        finds += 1
        return activities.firstIndex(of: data).map { .done(id: "a\($0 + 1)", url: nil) }
    }
}

struct FakeTarget: UploadTarget {
    let kind: TargetKind
    let service: FakeService

    func find(_ attempt: UploadAttempt) async throws(UploadFailure) -> UploadOutcome? { await service.lookUp(attempt.file) }
    func send(_ attempt: UploadAttempt) async throws(UploadFailure) -> UploadOutcome { try await service.take(attempt.file) }
}

/// A queue over a fresh ledger with one connected fake target.
struct QueueRig {
    let clock = TestClock()
    let source = FakeSource()
    let service = FakeService()
    let ledger: Ledger
    let queue: UploadQueue
    let dir: String

    init(kind: TargetKind = .intervals, directory: String? = nil) throws {
        dir = directory ?? NSTemporaryDirectory() + "upload-\(UUID().uuidString)"
        ledger = try Ledger(directory: dir)
        try ledger.setCredential(kind, Credential(fields: ["api_key": "k", "athlete_id": "i1"], connectedAt: 1_799_999_500))
        var settings = UploadSettings()
        settings.firstWait = 5
        settings.maxAttempts = 6
        let clock = self.clock
        queue = UploadQueue(ledger: ledger, settings: settings, targets: [FakeTarget(kind: kind, service: service)],
                            source: source, now: { clock.now })
    }

    /// Works what is due, then lets `seconds` pass, `times` times.
    func work(times: Int = 1, passing seconds: Double = 0) async {
        for _ in 0..<times {
            await queue.workDue()
            clock.advance(seconds)
        }
    }

    func job(_ session: Int64, _ kind: TargetKind = .intervals) throws -> UploadJob? { try ledger.job(kind, session) }
}
