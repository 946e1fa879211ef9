import GRDB

/// The workout library's table, beside the courses': one row per workout,
/// the workout itself as JSON (`Workout`'s Codable form: a workout is a
/// short list of steps that is always read whole, so it needs no table of
/// its own), and the step of a workout event (JSON) in the events' table.
enum WorkoutSchema {
    static func register(in m: inout DatabaseMigrator) {
        m.registerMigration("v6-workouts") { db in
            try db.execute(sql: """
                CREATE TABLE workout (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    name TEXT NOT NULL,
                    sport TEXT,
                    format TEXT NOT NULL,
                    created_at REAL NOT NULL,
                    source_bytes INTEGER NOT NULL,
                    steps INTEGER NOT NULL,
                    definition TEXT NOT NULL
                );
                """)
            // Every database has it since v1; a hand-made one without it has no events to carry.
            if try db.tableExists("event") { try db.execute(sql: "ALTER TABLE event ADD COLUMN workout TEXT") }
        }
    }
}
