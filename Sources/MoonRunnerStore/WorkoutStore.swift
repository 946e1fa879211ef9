import Foundation
import GRDB
import MoonRunnerCore

/// A workout in the library.
public struct StoredWorkout: Sendable, Equatable {
    public var id: Int64
    /// The file format it was added from: fit or text.
    public var format: String
    /// When it was added (daemon clock).
    public var createdAt: Double
    /// Size of the file or text it came from, bytes.
    public var sourceBytes: Int
    /// Steps as run, repeats unrolled.
    public var steps: Int
    public var workout: Workout
}

/// The workout library, in the sessions' database. Only checked workouts
/// come in (the caller resolves them first), so a stored one always runs.
public final class WorkoutStore: Sendable {
    private let database: DatabaseQueue

    public init(_ store: SessionStore) {
        database = store.database
    }

    /// Stores a workout; returns its row.
    public func add(_ workout: Workout, format: String, sourceBytes: Int, steps: Int,
                    at time: Double) async throws -> StoredWorkout {
        let json = String(decoding: try JSONEncoder().encode(workout), as: UTF8.self)
        let id: Int64 = try await database.write { db in
            try db.execute(sql: """
                INSERT INTO workout (name, sport, format, created_at, source_bytes, steps, definition)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """, arguments: [workout.name, workout.sport?.rawValue, format, time, sourceBytes, steps, json])
            return db.lastInsertedRowID
        }
        return StoredWorkout(id: id, format: format, createdAt: time, sourceBytes: sourceBytes, steps: steps,
                             workout: workout)
    }

    /// Every workout, newest first. A row whose definition no longer reads
    /// (written by something else) is left out rather than failing the list.
    public func workouts() async throws -> [StoredWorkout] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM workout ORDER BY id DESC").compactMap(Self.workout(from:))
        }
    }

    public func workout(id: Int64) async throws -> StoredWorkout? {
        try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM workout WHERE id = ?", arguments: [id]).flatMap(Self.workout(from:))
        }
    }

    /// Deletes a workout; false when there was none. Sessions that ran it
    /// keep it in their snapshot.
    public func delete(id: Int64) async throws -> Bool {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM workout WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    private static func workout(from r: Row) -> StoredWorkout? {
        let json: String = r["definition"]
        guard let workout = try? JSONDecoder().decode(Workout.self, from: Data(json.utf8)) else { return nil }
        return StoredWorkout(id: r["id"], format: r["format"], createdAt: r["created_at"], sourceBytes: r["source_bytes"],
                             steps: r["steps"], workout: workout)
    }
}
