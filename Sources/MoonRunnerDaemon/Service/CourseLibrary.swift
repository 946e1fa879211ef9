import Foundation
import MoonRunnerCore
import MoonRunnerExport
import MoonRunnerProtocol
import MoonRunnerSensors
import MoonRunnerStore

/// The course library behind `?COURSES`, `?COURSE`, `?COURSE_DELETE` and
/// uploads: reads course files (MoonRunnerExport's readers), keeps them in
/// the store, and hands a stored course to a session to follow. Parsing runs
/// in the caller's task, never on the session actor.
public final class CourseLibrary: Sendable {
    private let store: CourseStore
    private let clock: EngineClock
    /// Largest file accepted, bytes (`course.max_upload_kb`).
    public let maxUploadBytes: Int

    public init(store: SessionStore, clock: EngineClock, maxUploadBytes: Int) {
        self.store = CourseStore(store)
        self.clock = clock
        self.maxUploadBytes = maxUploadBytes
    }

    /// `?COURSES`: every course in the library.
    public func courses() async throws(RequestError) -> CoursesReply {
        CoursesReply(courses: try await reading { try await store.courses() }.map(Self.info))
    }

    /// `?COURSE`: one course with the points its file named.
    public func course(_ cid: Int64) async throws(RequestError) -> CourseReply {
        guard let (c, course) = try await reading({ try await store.load(id: cid) }) else { throw notFound(cid) }
        var info = Self.info(c)
        info.cues = (try? FollowedCourse(id: cid, course: course))?.cues ?? []
        return CourseReply(course: info)
    }

    /// `?COURSE_DELETE`: a course leaves the library (sessions that followed it keep its name).
    public func delete(_ cid: Int64) async throws(RequestError) -> CourseDeletedReply {
        guard try await reading({ try await store.delete(id: cid) }) else { throw notFound(cid) }
        return CourseDeletedReply(course: cid)
    }

    /// Reads an uploaded file and stores it as a course. A file that is not
    /// a course is `bad_course` and nothing is stored.
    public func add(_ data: Data, header: UploadHeader) async throws(RequestError) -> CourseInfo {
        guard data.count <= maxUploadBytes else {
            throw RequestError(.tooLarge, "the file has \(data.count) bytes; courses of at most \(maxUploadBytes / 1024) KiB "
                + "are accepted (course.max_upload_kb)")
        }
        let course: Course
        do {
            course = try CourseFile.read(data, format: header.format.flatMap(CourseFileFormat.init(rawValue:)),
                                         name: header.name)
        } catch {
            throw RequestError(.badCourse, "not a course: \(error.message); nothing was stored")
        }
        let format = header.format ?? CourseFileFormat.sniff(data)?.rawValue ?? "gpx"
        do {
            var info = Self.info(try await store.add(course, format: format, sourceBytes: data.count, at: clock.now()))
            info.cues = (try? FollowedCourse(id: info.id, course: course))?.cues ?? []
            return info
        } catch {
            throw RequestError(.storeError, "the store failed: \(error); the course was not stored")
        }
    }

    /// A stored course, ready to follow.
    public func load(id: Int64) async throws(RequestError) -> FollowedCourse {
        let found: (StoredCourse, Course)?
        do {
            found = try await store.load(id: id)
        } catch {
            throw RequestError(.storeError, "the store failed: \(error)")
        }
        guard let (stored, course) = found else {
            throw RequestError(.notFound, "no course \(id); ?COURSES; lists them")
        }
        do {
            return try FollowedCourse(id: stored.id, course: course)
        } catch {
            throw RequestError(.badCourse, "course \(id) cannot be followed: \(error.message)")
        }
    }

    private func notFound(_ cid: Int64) -> RequestError {
        RequestError(.notFound, "no course \(cid); ?COURSES; lists them")
    }

    /// Runs a read or write of the library; its failure is a `store_error`.
    private func reading<T>(_ body: () async throws -> T) async throws(RequestError) -> T {
        do {
            return try await body()
        } catch {
            throw RequestError(.storeError, "the store failed: \(error)")
        }
    }

    static func info(_ c: StoredCourse) -> CourseInfo {
        CourseInfo(id: c.id, name: c.name, format: c.format, createdAt: c.createdAt, lengthM: c.length, climbM: c.climb,
                   descentM: c.descent, points: c.pointCount,
                   bounds: CourseBounds(minLat: c.minLatitude, minLon: c.minLongitude, maxLat: c.maxLatitude,
                                        maxLon: c.maxLongitude))
    }
}
