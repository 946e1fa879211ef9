import GRDB

/// The versioned schema. Migrations only ever add; a database written by an
/// older MoonRunner opens in a newer one.
enum Schema {
    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE session (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    activity TEXT NOT NULL,
                    state TEXT NOT NULL,
                    start_time REAL NOT NULL,
                    end_time REAL,
                    updated_at REAL NOT NULL,
                    interrupted INTEGER NOT NULL DEFAULT 0,
                    distance_m REAL NOT NULL DEFAULT 0,
                    elapsed_s REAL NOT NULL DEFAULT 0,
                    moving_s REAL NOT NULL DEFAULT 0,
                    steps INTEGER NOT NULL DEFAULT 0,
                    snapshot TEXT NOT NULL
                );
                CREATE INDEX session_state ON session(state);
                CREATE TABLE point (
                    id INTEGER PRIMARY KEY,
                    session_id INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
                    time REAL NOT NULL,
                    fix_time REAL,
                    lat REAL NOT NULL,
                    lon REAL NOT NULL,
                    alt REAL,
                    speed REAL,
                    course REAL,
                    eph REAL,
                    new_segment INTEGER NOT NULL DEFAULT 0
                );
                CREATE INDEX point_session_time ON point(session_id, time);
                CREATE TABLE rejected_fix (
                    id INTEGER PRIMARY KEY,
                    session_id INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
                    time REAL NOT NULL,
                    fix_time REAL,
                    lat REAL,
                    lon REAL,
                    eph REAL,
                    reason TEXT NOT NULL
                );
                CREATE INDEX rejected_fix_session ON rejected_fix(session_id);
                CREATE TABLE event (
                    id INTEGER PRIMARY KEY,
                    session_id INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL,
                    time REAL NOT NULL,
                    detected_at REAL NOT NULL,
                    cause TEXT NOT NULL,
                    state TEXT NOT NULL,
                    detail TEXT
                );
                CREATE INDEX event_session ON event(session_id, time);
                CREATE TABLE step_second (
                    session_id INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
                    second INTEGER NOT NULL,
                    steps INTEGER NOT NULL,
                    cadence REAL NOT NULL,
                    PRIMARY KEY (session_id, second)
                ) WITHOUT ROWID;
                """)
        }
        m.registerMigration("v2-point-distance") { db in
            // The session's distance at each point (exports write it as is).
            try db.execute(sql: "ALTER TABLE point ADD COLUMN distance REAL")
        }
        m.registerMigration("v3-journal") { db in
            // The last journal record the database has taken in (see SessionJournal).
            try db.execute(sql: """
                CREATE TABLE journal_state (id INTEGER PRIMARY KEY CHECK (id = 1), applied_seq INTEGER NOT NULL);
                INSERT INTO journal_state (id, applied_seq) VALUES (1, 0);
                """)
        }
        CourseSchema.register(in: &m)
        m.registerMigration("v4-heart-rate") { db in
            // The heart rate at each point, every reading (NULL: missing, a gap) and the R–R intervals.
            try db.execute(sql: """
                ALTER TABLE point ADD COLUMN hr REAL;
                CREATE TABLE hr_sample (
                    session_id INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
                    time REAL NOT NULL,
                    bpm REAL
                );
                CREATE INDEX hr_sample_session_time ON hr_sample(session_id, time);
                CREATE TABLE rr_interval (
                    session_id INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
                    time REAL NOT NULL,
                    rr_ms REAL NOT NULL
                );
                CREATE INDEX rr_interval_session_time ON rr_interval(session_id, time);
                """)
        }
        CourseSchema.registerCues(in: &m)
        WorkoutSchema.register(in: &m)
        return m
    }
}
