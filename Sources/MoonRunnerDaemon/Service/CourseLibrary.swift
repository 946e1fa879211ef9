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

    /// Answers the read and delete requests; nil for other requests.
    public func handle(_ request: Request) async -> String? {
        let id = request.id
        do {
            switch request.command {
            case .courses:
                return ReplyEncoder.line(CoursesReply(courses: try await store.courses().map(Self.info), id: id))
            case let .course(cid):
                guard let (c, course) = try await store.load(id: cid) else { return notFound(cid, id) }
                var info = Self.info(c)
                info.cues = (try? FollowedCourse(id: cid, course: course))?.cues ?? []
                return ReplyEncoder.line(CourseReply(course: info, id: id))
            case let .courseDelete(cid):
                guard try await store.delete(id: cid) else { return notFound(cid, id) }
                return ReplyEncoder.line(CourseDeletedReply(course: cid, id: id))
            default:
                return nil
            }
        } catch {
            return ReplyEncoder.line(ErrorReply(RequestError(.storeError, "the store failed: \(error)", id: id)))
        }
    }

    /// Reads an uploaded file and stores it as a course. A file that is not
    /// a course is `bad_course` and nothing is stored.
    public func add(_ data: Data, header: CourseUploadHeader) async throws(RequestError) -> CourseInfo {
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

    private func notFound(_ cid: Int64, _ id: JSONValue?) -> String {
        ReplyEncoder.line(ErrorReply(RequestError(.notFound, "no course \(cid); ?COURSES; lists them", id: id)))
    }

    static func info(_ c: StoredCourse) -> CourseInfo {
        CourseInfo(id: c.id, name: c.name, format: c.format, createdAt: c.createdAt, lengthM: c.length, climbM: c.climb,
                   descentM: c.descent, points: c.pointCount,
                   bounds: CourseBounds(minLat: c.minLatitude, minLon: c.minLongitude, maxLat: c.maxLatitude,
                                        maxLon: c.maxLongitude))
    }
}
