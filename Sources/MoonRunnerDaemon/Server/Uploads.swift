import Logging
import MoonRunnerProtocol
import Synchronization

/// Files arriving over the socket: `?COURSE_ADD` or `?WORKOUT_ADD` announces
/// one, its `?COURSE_DATA` or `?WORKOUT_DATA` pieces follow, and the last one
/// stores it in its library. Each connection holds its own upload; all of
/// them together may announce `uploadsAtOnce` times the larger of the two
/// libraries' limits, a bounded amount of memory.
final class Uploads: Sendable {
    private let courses: CourseLibrary
    private let workouts: WorkoutLibrary
    private let logger: Logger
    /// Bytes announced by the uploads in progress on all connections.
    private let reserved = Atomic<Int>(0)
    /// Two full-size files at once.
    static let uploadsAtOnce = 2

    init(courses: CourseLibrary, workouts: WorkoutLibrary, logger: Logger) {
        self.courses = courses
        self.workouts = workouts
        self.logger = logger
    }

    /// The largest file of `kind` accepted, bytes.
    private func limit(_ kind: UploadKind) -> Int {
        switch kind {
        case .course: courses.maxUploadBytes
        case .workout: UploadKind.workoutMaxBytes
        }
    }

    /// `?COURSE_ADD` or `?WORKOUT_ADD`: opens an upload (dropping one left open on this connection).
    func open(_ header: UploadHeader, upload: inout FileUpload?) throws(RequestError) -> UploadReply {
        drop(&upload)
        let limit = limit(header.kind)
        guard header.bytes <= limit else {
            let setting = header.kind == .course ? " (course.max_upload_kb)" : ""
            throw RequestError(.tooLarge, "a \(header.kind.rawValue) file of \(header.bytes) bytes is larger than "
                + "\(limit / 1024) KiB\(setting); nothing was stored")
        }
        let budget = Self.uploadsAtOnce * max(self.limit(.course), self.limit(.workout))
        guard reserved.wrappingAdd(header.bytes, ordering: .relaxed).newValue <= budget else {
            reserved.wrappingSubtract(header.bytes, ordering: .relaxed)
            throw RequestError(.busy, "other uploads are in progress; try again in a moment")
        }
        upload = FileUpload(header)
        return UploadReply(kind: header.kind, seq: nil, received: 0, bytes: header.bytes, chunks: header.chunks)
    }

    /// `?COURSE_DATA` or `?WORKOUT_DATA`: one piece, acknowledged; the last one stores the file.
    func receive(_ kind: UploadKind, seq: Int, data: String,
                 upload: inout FileUpload?) async throws(RequestError) -> any RequestReply {
        guard var open = upload, open.header.kind == kind else {
            throw RequestError(.invalidState, "no \(kind.rawValue) upload in progress; send ?\(kind.announce.rawValue)="
                + "{\"bytes\":N,\"chunks\":K}; first")
        }
        do throws(RequestError) {
            try open.accept(seq: seq, data: data)
        } catch {
            drop(&upload)
            throw error
        }
        guard open.isComplete else {
            upload = open
            return UploadReply(kind: kind, seq: seq, received: open.data.count, bytes: open.header.bytes,
                               chunks: open.header.chunks)
        }
        // The bytes stay reserved until the file is read and stored.
        upload = nil
        defer { reserved.wrappingSubtract(open.header.bytes, ordering: .relaxed) }
        switch kind {
        case .course:
            let course = try await courses.add(open.data, header: open.header)
            logger.notice("course \(course.id) \"\(course.name)\" added (\(Int(course.lengthM)) m, \(course.points) points)")
            return CourseReply(course: course)
        case .workout:
            let workout = try await workouts.add(open.data, header: open.header)
            logger.notice("workout \(workout.id) \"\(workout.name)\" added (\(workout.steps) steps)")
            return WorkoutReply(workout: workout)
        }
    }

    /// An upload left open (the connection closed, or another began): its bytes are free again.
    func drop(_ upload: inout FileUpload?) {
        guard let open = upload else { return }
        reserved.wrappingSubtract(open.header.bytes, ordering: .relaxed)
        upload = nil
    }
}
