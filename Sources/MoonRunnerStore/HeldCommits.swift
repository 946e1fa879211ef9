import MoonRunnerCore
import MoonRunnerSystem

/// Commits in the journal that the database has not taken in yet, and how
/// reads see them: a pure value, kept under the store's lock.
struct HeldCommits: Sendable {
    var batches: [CommitBatch] = []
    /// How many of `batches` a consolidation is writing now (they must stay as they are).
    var inFlight = 0
    var nextSeq: UInt64 = 1
    var since = MonotonicClock.now()
    var consolidationError: String?

    /// A commit of the session the last held batch belongs to is merged into it
    /// (`CommitBatch.absorb`), unless a consolidation is writing that batch.
    mutating func hold(_ batch: CommitBatch) {
        if batches.count > inFlight, let last = batches.indices.last, batches[last].sessionID == batch.sessionID {
            batches[last].absorb(batch)
        } else {
            batches.append(batch)
        }
    }

    /// The batches of session `id`.
    func batches(of id: Int64) -> [CommitBatch] {
        batches.filter { $0.sessionID == id }
    }

    /// The sessions that have rows here.
    var sessionIDs: [Int64] { Array(Set(batches.map(\.sessionID))) }

    /// Session rows as the latest batch of each leaves them.
    func overlaid(_ rows: [StoredSession]) -> [StoredSession] {
        var latest: [Int64: (snapshot: SessionSnapshot, end: Double?)] = [:]
        for b in batches { latest[b.sessionID] = (b.snapshot, b.endTime ?? latest[b.sessionID]?.end) }
        guard !latest.isEmpty else { return rows }
        return rows.map { row in
            guard let l = latest[row.id] else { return row }
            var r = row
            r.snapshot = l.snapshot
            r.state = l.snapshot.state
            r.updatedAt = l.snapshot.lastTime
            r.endTime = l.end ?? r.endTime
            return r
        }
    }

    /// The database's step seconds of session `id` followed by the held ones,
    /// added up as the database adds them: a second split over two commits is one row.
    func stepSeconds(of id: Int64, after stored: [StepSecondSample]) -> [StepSecondSample] {
        var seconds = stored
        for s in batches(of: id).flatMap(\.stepSeconds) {
            if let last = seconds.last, last.second == s.second {
                seconds[seconds.count - 1].steps += s.steps
                seconds[seconds.count - 1].cadence = s.cadence
            } else {
                seconds.append(s)
            }
        }
        return seconds
    }
}
