import Foundation
import GRDB
import MoonRunnerCore

/// A course in the library, without its points.
public struct StoredCourse: Sendable, Equatable {
    public var id: Int64
    public var name: String
    /// The file format it was added from: gpx, tcx or fit.
    public var format: String
    /// When it was added (daemon clock).
    public var createdAt: Double
    /// Size of the file it came from, bytes.
    public var sourceBytes: Int
    public var length: Double
    public var climb: Double
    public var descent: Double
    public var pointCount: Int
    public var minLatitude: Double
    public var minLongitude: Double
    public var maxLatitude: Double
    public var maxLongitude: Double
}

/// The course library, in the sessions' database: added whole in one
/// transaction (a course is there with all its points or not at all).
public final class CourseStore: Sendable {
    private let database: DatabaseQueue

    public init(_ store: SessionStore) {
        database = store.database
    }

    /// Stores a course read from a file; returns its row.
    public func add(_ course: Course, format: String, sourceBytes: Int, at time: Double) async throws -> StoredCourse {
        let s = CourseSummary(course.points)
        let id: Int64 = try await database.write { db in
            try db.execute(sql: """
                INSERT INTO course (name, format, created_at, source_bytes, length_m, climb_m, descent_m, point_count,
                                    min_lat, min_lon, max_lat, max_lon)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [course.name, format, time, sourceBytes, s.length, s.climb, s.descent, course.points.count,
                                 s.minLatitude, s.minLongitude, s.maxLatitude, s.maxLongitude])
            let id = db.lastInsertedRowID
            let st = try db.cachedStatement(sql: "INSERT INTO course_point (course_id, seq, lat, lon, ele) VALUES (?, ?, ?, ?, ?)")
            for (k, p) in course.points.enumerated() {
                try st.execute(arguments: [id, k, p.latitude, p.longitude, p.elevation.isFinite ? p.elevation : nil])
            }
            let mark = try db.cachedStatement(sql: """
                INSERT INTO course_mark (course_id, seq, lat, lon, kind, name, notes, distance_m) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for (k, m) in course.marks.enumerated() {
                try mark.execute(arguments: [id, k, m.latitude, m.longitude, m.kind.rawValue, m.name, m.notes, m.distance])
            }
            return id
        }
        return StoredCourse(id: id, name: course.name, format: format, createdAt: time, sourceBytes: sourceBytes,
                            length: s.length, climb: s.climb, descent: s.descent, pointCount: course.points.count,
                            minLatitude: s.minLatitude, minLongitude: s.minLongitude, maxLatitude: s.maxLatitude,
                            maxLongitude: s.maxLongitude)
    }

    /// Every course, newest first.
    public func courses() async throws -> [StoredCourse] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM course ORDER BY id DESC").map(Self.course(from:))
        }
    }

    public func course(id: Int64) async throws -> StoredCourse? {
        try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM course WHERE id = ?", arguments: [id]).map(Self.course(from:))
        }
    }

    /// The course with its points and marks, ready to follow; nil when there is no such course.
    public func load(id: Int64) async throws -> (StoredCourse, Course)? {
        try await database.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM course WHERE id = ?", arguments: [id]) else { return nil }
            let stored = Self.course(from: row)
            let points = try Row.fetchAll(db, sql: "SELECT lat, lon, ele FROM course_point WHERE course_id = ? ORDER BY seq",
                                          arguments: [id]).map { r in
                CoursePoint(latitude: r["lat"], longitude: r["lon"], elevation: r["ele"] ?? .nan)
            }
            let marks = try Row.fetchAll(db, sql: """
                SELECT lat, lon, kind, name, notes, distance_m FROM course_mark WHERE course_id = ? ORDER BY seq
                """, arguments: [id]).map { r in
                CourseMark(latitude: r["lat"], longitude: r["lon"], kind: CueKind(rawValue: r["kind"]) ?? .generic,
                           name: r["name"], notes: r["notes"], distance: r["distance_m"])
            }
            return (stored, Course(name: stored.name, points: points, marks: marks))
        }
    }

    /// Deletes a course and its points; false when there was none. Sessions
    /// that followed it keep its name and id in their snapshot.
    public func delete(id: Int64) async throws -> Bool {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM course WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    private static func course(from r: Row) -> StoredCourse {
        StoredCourse(id: r["id"], name: r["name"], format: r["format"], createdAt: r["created_at"],
                     sourceBytes: r["source_bytes"], length: r["length_m"], climb: r["climb_m"], descent: r["descent_m"],
                     pointCount: r["point_count"], minLatitude: r["min_lat"], minLongitude: r["min_lon"],
                     maxLatitude: r["max_lat"], maxLongitude: r["max_lon"])
    }
}
