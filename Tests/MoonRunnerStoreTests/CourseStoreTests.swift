import Foundation
import GRDB
import MoonRunnerCore
import Testing
@testable import MoonRunnerStore

@Suite("Course store")
struct CourseStoreTests {
    static func course(_ name: String, points n: Int) -> Course {
        Course(name: name, points: (0..<n).map {
            CoursePoint(latitude: 47 + Double($0) * 1e-4, longitude: 8, elevation: $0 == 1 ? .nan : 400 + Double($0))
        })
    }

    @Test("a course is stored whole with its figures, listed newest first, loaded point for point")
    func addListLoad() async throws {
        let sessions = try SessionStore(directory: try tempStoreDir())
        let store = CourseStore(sessions)
        let a = try await store.add(Self.course("a", points: 50), format: "gpx", sourceBytes: 4000, at: 100)
        let b = try await store.add(Self.course("b", points: 3), format: "fit", sourceBytes: 90, at: 200)
        #expect(try await store.courses().map(\.id) == [b.id, a.id])
        let got = try #require(try await store.course(id: a.id))
        #expect(got == a && got.pointCount == 50 && abs(got.length - CourseSummary(Self.course("a", points: 50).points).length) < 1e-6)
        #expect(got.climb == 49 && got.format == "gpx" && got.sourceBytes == 4000 && got.createdAt == 100)
        let (_, loaded) = try #require(try await store.load(id: a.id))
        #expect(loaded.points.count == 50 && loaded.points[1].elevation.isNaN && loaded.points[49].elevation == 449)
        #expect(loaded.points.map(\.latitude) == Self.course("a", points: 50).points.map(\.latitude))
    }

    @Test("deleting a course removes its points and leaves sessions alone")
    func delete() async throws {
        let sessions = try SessionStore(directory: try tempStoreDir())
        let store = CourseStore(sessions)
        let sid = try await sessions.createSession(activity: .run, snapshot: snapshot())
        let c = try await store.add(Self.course("c", points: 10), format: "tcx", sourceBytes: 1, at: 1)
        #expect(try await store.delete(id: c.id))
        #expect(try await !store.delete(id: c.id))
        #expect(try await store.load(id: c.id) == nil)
        let left = try await sessions.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM course_point") }
        #expect(left == 0)
        #expect(try await sessions.session(id: sid) != nil)
    }

    @Test("a database written before courses gains the tables and keeps its sessions")
    func migratesOldDatabase() async throws {
        let dir = try tempStoreDir()
        let path = (dir as NSString).appendingPathComponent(SessionStore.fileName)
        // The sessions and points schema, as MoonRunner wrote it before courses.
        let queue = try DatabaseQueue(path: path)
        var v1 = DatabaseMigrator()
        v1.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE session (id INTEGER PRIMARY KEY AUTOINCREMENT, activity TEXT NOT NULL, state TEXT NOT NULL,
                start_time REAL NOT NULL, end_time REAL, updated_at REAL NOT NULL, interrupted INTEGER NOT NULL DEFAULT 0,
                distance_m REAL NOT NULL DEFAULT 0, elapsed_s REAL NOT NULL DEFAULT 0, moving_s REAL NOT NULL DEFAULT 0,
                steps INTEGER NOT NULL DEFAULT 0, snapshot TEXT NOT NULL);
                CREATE TABLE point (id INTEGER PRIMARY KEY, session_id INTEGER NOT NULL REFERENCES session(id)
                ON DELETE CASCADE, time REAL NOT NULL, fix_time REAL, lat REAL NOT NULL, lon REAL NOT NULL, alt REAL,
                speed REAL, course REAL, eph REAL, new_segment INTEGER NOT NULL DEFAULT 0);
                INSERT INTO session (activity, state, start_time, updated_at, snapshot)
                VALUES ('run', 'stopped', 1, 2, '{"state":"stopped","stats":{},"pauses":[],"last_time":2}');
                """)
        }
        try v1.migrate(queue)
        try queue.close()
        let sessions = try SessionStore(directory: dir)
        #expect(sessions.recoveredFromDamage == nil)
        #expect(try await sessions.sessions(limit: 5).count == 1)
        let c = try await CourseStore(sessions).add(Self.course("new", points: 2), format: "gpx", sourceBytes: 1, at: 3)
        #expect(c.id == 1)
    }
}
