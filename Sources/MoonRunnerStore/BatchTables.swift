import GRDB
import MoonRunnerCore

/// Writes commit batches into the session tables: the one place that turns a
/// `CommitBatch` into rows. Called inside the write transaction that also
/// records the last journal record taken in, so the two never disagree.
enum BatchTables {
    /// Writes batches in one transaction, with the number of the last journal record they came from.
    static func apply(_ batches: [CommitBatch], upTo seq: UInt64, in db: Database) throws {
        for batch in batches {
            // A session deleted meanwhile keeps nothing.
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM session WHERE id = ?", arguments: [batch.sessionID]) == true
            else { continue }
            let json = try SnapshotJSON.encode(batch.snapshot)
            try insertRows(of: batch, in: db)
            let sid = batch.sessionID
            let stats = batch.snapshot.stats
            try db.execute(sql: """
                UPDATE session SET state = ?, updated_at = ?, distance_m = ?, elapsed_s = ?, moving_s = ?,
                steps = ?, snapshot = ?, end_time = COALESCE(?, end_time) WHERE id = ?
                """, arguments: [batch.snapshot.state.rawValue, batch.snapshot.lastTime, stats.distance,
                                 stats.elapsed, stats.moving, stats.steps, json, batch.endTime, sid])
        }
        try db.execute(sql: "UPDATE journal_state SET applied_seq = MAX(applied_seq, ?)", arguments: [seq])
    }

    /// The batch's rows, table by table; step seconds add up (a second split
    /// over two commits is one row).
    private static func insertRows(of batch: CommitBatch, in db: Database) throws {
        let sid = batch.sessionID
        try insert(batch.points, in: db, sql: """
            INSERT INTO point (session_id, time, fix_time, lat, lon, alt, speed, course, eph, new_segment,
                               distance, hr)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """) { p in
            [sid, p.time, opt(p.fixTime), p.latitude, p.longitude, opt(p.altitude), opt(p.speed), opt(p.course),
             opt(p.eph), p.newSegment, opt(p.distance), opt(p.heartRate)]
        }
        try insert(batch.heartRate, in: db, sql: "INSERT INTO hr_sample (session_id, time, bpm) VALUES (?, ?, ?)") { r in
            [sid, r.time, opt(r.bpm)]
        }
        try insert(batch.rrIntervals, in: db, sql: "INSERT INTO rr_interval (session_id, time, rr_ms) VALUES (?, ?, ?)") { r in
            [sid, r.time, r.milliseconds]
        }
        try insert(batch.rejected, in: db, sql: """
            INSERT INTO rejected_fix (session_id, time, fix_time, lat, lon, eph, reason)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """) { r in
            [sid, r.time, opt(r.fix.time), opt(r.fix.latitude), opt(r.fix.longitude), opt(r.fix.eph), r.reason.rawValue]
        }
        try insert(batch.events, in: db, sql: """
            INSERT INTO event (session_id, kind, time, detected_at, cause, state, detail, cue, workout)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """) { e in
            [sid, e.kind.rawValue, e.time, e.detectedAt, e.cause, e.state.rawValue, e.detail, CueJSON.encode(e.cue),
             WorkoutEventJSON.encode(e.workout)]
        }
        try insert(batch.stepSeconds, in: db, sql: """
            INSERT INTO step_second (session_id, second, steps, cadence) VALUES (?, ?, ?, ?)
            ON CONFLICT(session_id, second) DO UPDATE SET steps = steps + excluded.steps,
            cadence = excluded.cadence
            """) { s in
            [sid, s.second, s.steps, s.cadence]
        }
    }

    /// Inserts `rows` through one cached statement, `arguments` giving each row's values.
    private static func insert<Row>(_ rows: [Row], in db: Database, sql: String,
                                    arguments: (Row) -> StatementArguments) throws {
        guard !rows.isEmpty else { return }
        let st = try db.cachedStatement(sql: sql)
        for r in rows { try st.execute(arguments: arguments(r)) }
    }

    /// NaN is stored as NULL.
    private static func opt(_ v: Double) -> Double? { v.isFinite ? v : nil }
}
