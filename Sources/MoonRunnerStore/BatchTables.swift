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
            let sid = batch.sessionID
            try insert(batch.points, session: sid, in: db)
            try insert(heartRate: batch.heartRate, rrIntervals: batch.rrIntervals, session: sid, in: db)
            try insert(batch.rejected, session: sid, in: db)
            try insert(batch.events, session: sid, in: db)
            try add(batch.stepSeconds, session: sid, in: db)
            let stats = batch.snapshot.stats
            try db.execute(sql: """
                UPDATE session SET state = ?, updated_at = ?, distance_m = ?, elapsed_s = ?, moving_s = ?,
                steps = ?, snapshot = ?, end_time = COALESCE(?, end_time) WHERE id = ?
                """, arguments: [batch.snapshot.state.rawValue, batch.snapshot.lastTime, stats.distance,
                                 stats.elapsed, stats.moving, stats.steps, json, batch.endTime, sid])
        }
        try db.execute(sql: "UPDATE journal_state SET applied_seq = MAX(applied_seq, ?)", arguments: [seq])
    }

    private static func insert(_ points: [TrackPoint], session sid: Int64, in db: Database) throws {
        guard !points.isEmpty else { return }
        let st = try db.cachedStatement(sql: """
            INSERT INTO point (session_id, time, fix_time, lat, lon, alt, speed, course, eph, new_segment,
                               distance, hr)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for p in points {
            try st.execute(arguments: [sid, p.time, opt(p.fixTime), p.latitude, p.longitude,
                                       opt(p.altitude), opt(p.speed), opt(p.course),
                                       opt(p.eph), p.newSegment, opt(p.distance), opt(p.heartRate)])
        }
    }

    private static func insert(heartRate: [HeartRateReading], rrIntervals: [RRInterval], session sid: Int64,
                               in db: Database) throws {
        if !heartRate.isEmpty {
            let st = try db.cachedStatement(sql: "INSERT INTO hr_sample (session_id, time, bpm) VALUES (?, ?, ?)")
            for r in heartRate { try st.execute(arguments: [sid, r.time, opt(r.bpm)]) }
        }
        if !rrIntervals.isEmpty {
            let st = try db.cachedStatement(sql: "INSERT INTO rr_interval (session_id, time, rr_ms) VALUES (?, ?, ?)")
            for r in rrIntervals { try st.execute(arguments: [sid, r.time, r.milliseconds]) }
        }
    }

    private static func insert(_ rejected: [RejectedFix], session sid: Int64, in db: Database) throws {
        guard !rejected.isEmpty else { return }
        let st = try db.cachedStatement(sql: """
            INSERT INTO rejected_fix (session_id, time, fix_time, lat, lon, eph, reason)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        for r in rejected {
            try st.execute(arguments: [sid, r.time, opt(r.fix.time), opt(r.fix.latitude),
                                       opt(r.fix.longitude), opt(r.fix.eph), r.reason.rawValue])
        }
    }

    private static func insert(_ events: [SessionEvent], session sid: Int64, in db: Database) throws {
        guard !events.isEmpty else { return }
        let st = try db.cachedStatement(sql: """
            INSERT INTO event (session_id, kind, time, detected_at, cause, state, detail)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        for e in events {
            try st.execute(arguments: [sid, e.kind.rawValue, e.time, e.detectedAt, e.cause,
                                       e.state.rawValue, e.detail])
        }
    }

    /// Step seconds add up: a second split over two commits is one row.
    private static func add(_ stepSeconds: [StepSecondSample], session sid: Int64, in db: Database) throws {
        guard !stepSeconds.isEmpty else { return }
        let st = try db.cachedStatement(sql: """
            INSERT INTO step_second (session_id, second, steps, cadence) VALUES (?, ?, ?, ?)
            ON CONFLICT(session_id, second) DO UPDATE SET steps = steps + excluded.steps,
            cadence = excluded.cadence
            """)
        for s in stepSeconds {
            try st.execute(arguments: [sid, s.second, s.steps, s.cadence])
        }
    }

    /// NaN is stored as NULL.
    private static func opt(_ v: Double) -> Double? { v.isFinite ? v : nil }
}
