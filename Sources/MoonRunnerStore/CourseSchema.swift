import GRDB

/// The course library's tables, added beside the sessions' (which they do
/// not touch): one row per course with the figures `?COURSES` lists, and its
/// points in order.
enum CourseSchema {
    static func register(in m: inout DatabaseMigrator) {
        m.registerMigration("courses-v1") { db in
            try db.execute(sql: """
                CREATE TABLE course (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    name TEXT NOT NULL,
                    format TEXT NOT NULL,
                    created_at REAL NOT NULL,
                    source_bytes INTEGER NOT NULL,
                    length_m REAL NOT NULL,
                    climb_m REAL NOT NULL,
                    descent_m REAL NOT NULL,
                    point_count INTEGER NOT NULL,
                    min_lat REAL NOT NULL,
                    min_lon REAL NOT NULL,
                    max_lat REAL NOT NULL,
                    max_lon REAL NOT NULL
                );
                CREATE TABLE course_point (
                    course_id INTEGER NOT NULL REFERENCES course(id) ON DELETE CASCADE,
                    seq INTEGER NOT NULL,
                    lat REAL NOT NULL,
                    lon REAL NOT NULL,
                    ele REAL,
                    PRIMARY KEY (course_id, seq)
                ) WITHOUT ROWID;
                """)
        }
    }

    /// Cues: the points a course file names beside its line, as
    /// the file has them (they are placed on the course when it is read, so
    /// that a better placement applies to courses already stored), and the
    /// cue a `turn_ahead`/`turn_now` event said (JSON). Courses and events
    /// stored before have none: a course without points is cued from its
    /// shape.
    static func registerCues(in m: inout DatabaseMigrator) {
        m.registerMigration("v5-cues") { db in
            try db.execute(sql: """
                CREATE TABLE course_mark (
                    course_id INTEGER NOT NULL REFERENCES course(id) ON DELETE CASCADE,
                    seq INTEGER NOT NULL,
                    lat REAL NOT NULL,
                    lon REAL NOT NULL,
                    kind TEXT NOT NULL,
                    name TEXT,
                    notes TEXT,
                    distance_m REAL,
                    PRIMARY KEY (course_id, seq)
                ) WITHOUT ROWID;
                """)
            // Every database has it since v1; a hand-made one without it has no events to carry.
            if try db.tableExists("event") { try db.execute(sql: "ALTER TABLE event ADD COLUMN cue TEXT") }
        }
    }
}
