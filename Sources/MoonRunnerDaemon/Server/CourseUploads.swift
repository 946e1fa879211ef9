import Logging
import MoonRunnerProtocol
import Synchronization

/// Course files arriving over the socket: `?COURSE_ADD` announces one, its
/// `?COURSE_DATA` pieces follow, and the last one stores it in the library.
/// Each connection holds its own upload; all of them together may announce
/// `uploadsAtOnce` times `course.max_upload_kb`, a bounded amount of memory.
final class CourseUploads: Sendable {
    private let library: CourseLibrary
    private let logger: Logger
    /// Bytes announced by the uploads in progress on all connections.
    private let reserved = Atomic<Int>(0)
    /// Two full-size files at once.
    static let uploadsAtOnce = 2

    init(library: CourseLibrary, logger: Logger) {
        self.library = library
        self.logger = logger
    }

    /// `?COURSE_ADD`: opens an upload (dropping one left open on this connection).
    func open(_ header: CourseUploadHeader, upload: inout CourseUpload?) throws(RequestError) -> CourseUploadReply {
        drop(&upload)
        let limit = library.maxUploadBytes
        guard header.bytes <= limit else {
            throw RequestError(.tooLarge,
                "a course file of \(header.bytes) bytes is larger than \(limit / 1024) KiB (course.max_upload_kb); nothing was stored")
        }
        guard reserved.wrappingAdd(header.bytes, ordering: .relaxed).newValue <= Self.uploadsAtOnce * limit else {
            reserved.wrappingSubtract(header.bytes, ordering: .relaxed)
            throw RequestError(.busy, "other uploads are in progress; try again in a moment")
        }
        upload = CourseUpload(header)
        return CourseUploadReply(seq: nil, received: 0, bytes: header.bytes, chunks: header.chunks)
    }

    /// `?COURSE_DATA`: one piece, acknowledged; the last one stores the course.
    func receive(seq: Int, data: String, upload: inout CourseUpload?) async throws(RequestError) -> any RequestReply {
        guard var open = upload else {
            throw RequestError(.invalidState,
                "no course upload in progress; send ?COURSE_ADD={\"bytes\":N,\"chunks\":K}; first")
        }
        do throws(RequestError) {
            try open.accept(seq: seq, data: data)
        } catch {
            drop(&upload)
            throw error
        }
        guard open.isComplete else {
            upload = open
            return CourseUploadReply(seq: seq, received: open.data.count, bytes: open.header.bytes,
                                     chunks: open.header.chunks)
        }
        // The bytes stay reserved until the file is read and stored.
        upload = nil
        defer { reserved.wrappingSubtract(open.header.bytes, ordering: .relaxed) }
        let course = try await library.add(open.data, header: open.header)
        logger.notice("course \(course.id) \"\(course.name)\" added (\(Int(course.lengthM)) m, \(course.points) points)")
        return CourseReply(course: course)
    }

    /// An upload left open (the connection closed, or another began): its bytes are free again.
    func drop(_ upload: inout CourseUpload?) {
        guard let open = upload else { return }
        reserved.wrappingSubtract(open.header.bytes, ordering: .relaxed)
        upload = nil
    }
}
