import GRDB
import MoonRunnerCore

/// What the database holds of sessions, read as the model's values. It knows
/// nothing of the journal: `SessionStore` adds the commits held there.
struct SessionRecords: Sendable {
    let database: DatabaseQueue

    /// Session rows left open (recording or paused), and those of `ids` whatever their state.
    func openSessions(including ids: [Int64]) async throws -> [StoredSession] {
        try await database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM session WHERE state IN ('recording', 'autoPaused', 'paused') OR id IN (\(
                    ids.map(String.init).joined(separator: ",")
                )) ORDER BY id
                """).compactMap(StoredSession.init(row:))
        }
    }

    /// Newest first; `before` pages backwards by id.
    func sessions(limit: Int, before: Int64?) async throws -> [StoredSession] {
        try await database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM session WHERE id < ? ORDER BY id DESC LIMIT ?
                """, arguments: [before ?? Int64.max, limit]).compactMap(StoredSession.init(row:))
        }
    }

    func session(id: Int64) async throws -> StoredSession? {
        try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM session WHERE id = ?", arguments: [id]).flatMap(StoredSession.init(row:))
        }
    }

    func points(session id: Int64) async throws -> [TrackPoint] {
        // Columns by position, rows through a cursor: looking a column up by name
        // lower-cases it for every row and column (GRDB), which was most of the
        // 270 ms a 10-hour session's ?SESSION cost.
        try await database.read { db in
            var points: [TrackPoint] = []
            let rows = try Row.fetchCursor(db, sql: """
                SELECT time, fix_time, lat, lon, alt, speed, course, eph, new_segment, distance, hr
                FROM point WHERE session_id = ? ORDER BY time, id
                """, arguments: [id])
            while let r = try rows.next() {
                points.append(TrackPoint(time: r[0], fixTime: r[1] ?? .nan, latitude: r[2], longitude: r[3],
                                         altitude: r[4] ?? .nan, speed: r[5] ?? .nan, course: r[6] ?? .nan,
                                         eph: r[7] ?? .nan, newSegment: r[8], distance: r[9] ?? .nan,
                                         heartRate: r[10] ?? .nan))
            }
            return points
        }
    }

    func heartRate(session id: Int64) async throws -> [HeartRatePoint] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT time, bpm FROM hr_sample WHERE session_id = ? ORDER BY time, rowid",
                             arguments: [id]).map { HeartRatePoint(time: $0[0], bpm: $0[1] ?? .nan) }
        }
    }

    func rrIntervals(session id: Int64) async throws -> [RRInterval] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT time, rr_ms FROM rr_interval WHERE session_id = ? ORDER BY time, rowid",
                             arguments: [id]).map { RRInterval(time: $0[0], milliseconds: $0[1]) }
        }
    }

    func events(session id: Int64) async throws -> [SessionEvent] {
        try await database.read { db -> [SessionEvent] in
            try Row.fetchAll(db, sql: "SELECT * FROM event WHERE session_id = ? ORDER BY time, id", arguments: [id]).compactMap { r -> SessionEvent? in
                guard let kind = SessionEventKind(rawValue: r["kind"]),
                      let state = SessionState(rawValue: r["state"]) else { return nil }
                return SessionEvent(kind: kind, time: r["time"], detectedAt: r["detected_at"], cause: r["cause"],
                                    state: state, detail: r["detail"], cue: CueJSON.decode(r["cue"]),
                                    workout: WorkoutEventJSON.decode(r["workout"]))
            }
        }
    }

    func rejectedFixes(session id: Int64) async throws -> [RejectedFix] {
        try await database.read { db -> [RejectedFix] in
            try Row.fetchAll(db, sql: "SELECT * FROM rejected_fix WHERE session_id = ? ORDER BY id", arguments: [id]).compactMap { r -> RejectedFix? in
                guard let reason = FixRejection(rawValue: r["reason"]) else { return nil }
                let fix = GPSFix(time: r["fix_time"] ?? .nan, mode: 0, latitude: r["lat"] ?? .nan,
                                 longitude: r["lon"] ?? .nan, eph: r["eph"] ?? .nan)
                return RejectedFix(time: r["time"], fix: fix, reason: reason)
            }
        }
    }

    func pointCount(session id: Int64) async throws -> Int {
        try await database.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM point WHERE session_id = ?", arguments: [id]) ?? 0
        }
    }

    func stepSeconds(session id: Int64) async throws -> [StepSecondSample] {
        try await database.read { db in
            var seconds: [StepSecondSample] = []
            let rows = try Row.fetchCursor(db, sql: "SELECT second, steps, cadence FROM step_second WHERE session_id = ? ORDER BY second",
                                           arguments: [id])
            while let r = try rows.next() { seconds.append(StepSecondSample(second: r[0], steps: r[1], cadence: r[2])) }
            return seconds
        }
    }
}

extension StoredSession {
    /// A `session` row; nil when a column cannot be read (a newer daemon's state, a damaged snapshot).
    init?(row r: Row) {
        guard let activity = Activity(rawValue: r["activity"]),
              let state = SessionState(rawValue: r["state"]),
              let json: String = r["snapshot"],
              let snapshot = SnapshotJSON.decode(json) else { return nil }
        self.init(id: r["id"], activity: activity, state: state, startTime: r["start_time"],
                  endTime: r["end_time"], updatedAt: r["updated_at"], interrupted: r["interrupted"],
                  snapshot: snapshot)
    }
}
