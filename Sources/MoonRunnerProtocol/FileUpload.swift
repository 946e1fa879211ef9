import FoundationEssentials
import MoonRunnerCore

/// What a file upload carries. Courses and workouts come the same way, in
/// pieces of one line each, so that no file needs a larger line limit: each
/// kind has its own pair of requests and its own reply class.
public enum UploadKind: String, Sendable, CaseIterable {
    case course, workout

    /// The request that announces the file, and the one that carries each piece.
    public var announce: CommandName { self == .course ? .courseAdd : .workoutAdd }
    public var piece: CommandName { self == .course ? .courseData : .workoutData }
    /// The reply to the announcement and to every piece but the last.
    public var replyClass: String { self == .course ? "COURSE_UPLOAD" : "WORKOUT_UPLOAD" }
    /// The formats the daemon reads; a file of another is refused at the announcement.
    public var formats: [String] { self == .course ? ["gpx", "tcx", "fit"] : ["fit", "text"] }

    /// Largest workout file a daemon takes, bytes: 250 entries (the most a
    /// workout may have), each with a name and a note of FIT's longest string
    /// (255 bytes), are about 135 KB. A course's limit is `course.max_upload_kb`.
    public static let workoutMaxBytes = 256 * 1024
}

/// What `?COURSE_ADD` or `?WORKOUT_ADD` announces: the file that `chunks`
/// `?COURSE_DATA` (or `?WORKOUT_DATA`) lines will carry, `bytes` bytes in
/// all, each piece `encoding`-encoded.
public struct UploadHeader: Sendable, Equatable {
    public var kind: UploadKind
    /// The course's or workout's name (default: the file's own, else "course" or "workout").
    public var name: String?
    /// One of `kind.formats`; nil: the daemon looks at the file.
    public var format: String?
    /// base64 or utf8, as `EXPORT_DATA`.
    public var encoding: String
    public var bytes: Int
    public var chunks: Int

    /// Hard limits of the protocol (the daemon's own limits are lower).
    public static let maxBytes = 64 << 20
    public static let maxChunks = 1 << 20

    public init(kind: UploadKind, name: String?, format: String?, encoding: String, bytes: Int, chunks: Int) {
        self.kind = kind
        self.name = name
        self.format = format
        self.encoding = encoding
        self.bytes = bytes
        self.chunks = chunks
    }
}

/// An upload being received on one connection: the pieces must come in
/// order, decode, and add up to exactly the announced size; anything else
/// is an error and the upload is dropped (nothing is stored).
public struct FileUpload: Sendable {
    public let header: UploadHeader
    public private(set) var received = 0
    public private(set) var data: Data

    public init(_ header: UploadHeader) {
        self.header = header
        data = Data()
        data.reserveCapacity(header.bytes)
    }

    /// True once every announced piece has arrived.
    public var isComplete: Bool { received == header.chunks }

    /// Adds piece `seq`; throws (with a message for the client) when it is
    /// out of order, does not decode or goes past the announced size.
    public mutating func accept(seq: Int, data text: String) throws(RequestError) {
        let piece = "?\(header.kind.piece.rawValue)"
        guard seq == received else {
            throw RequestError(.badParameter, "\(piece) piece \(seq) arrived, \(received) was expected; "
                + "the upload was dropped, start again with ?\(header.kind.announce.rawValue)")
        }
        let bytes: Data
        if header.encoding == "base64" {
            guard let d = Data(base64Encoded: text) else {
                throw RequestError(.badParameter, "\(piece) piece \(seq) is not valid base64; the upload was dropped")
            }
            bytes = d
        } else {
            bytes = Data(text.utf8)
        }
        guard data.count + bytes.count <= header.bytes else {
            throw RequestError(.badParameter, "the upload is longer than the announced \(header.bytes) bytes; it was dropped")
        }
        data.append(bytes)
        received += 1
        if isComplete && data.count != header.bytes {
            throw RequestError(.badParameter, "the upload has \(data.count) bytes, \(header.bytes) were announced; it was dropped")
        }
    }

    /// The request lines that upload `file` as `kind`: the announcement and
    /// its pieces, base64, each line well under 4096 bytes.
    public static func lines(for file: Data, kind: UploadKind, name: String?, format: String?,
                             chunkBytes: Int = defaultChunkBytes) -> [String] {
        let size = max(3, chunkBytes - chunkBytes % 3)
        var pieces: [Data] = []
        var start = file.startIndex
        while start < file.endIndex {
            let end = min(file.endIndex, start + size)
            pieces.append(file[start..<end])
            start = end
        }
        let header = UploadHeader(kind: kind, name: name, format: format, encoding: "base64", bytes: file.count,
                                  chunks: max(1, pieces.count))
        var lines = [Request(command: kind == .course ? .courseAdd(header) : .workoutAdd(header)).line]
        for (seq, piece) in pieces.enumerated() {
            let text = piece.base64EncodedString()
            lines.append(Request(command: kind == .course ? .courseData(seq: seq, data: text)
                                                          : .workoutData(seq: seq, data: text)).line)
        }
        return lines
    }

    /// File bytes per piece: 2 KiB become 2732 base64 characters, a line of
    /// about 2.8 KB (the default line limit is 4096).
    public static let defaultChunkBytes = 2046
}

/// `{"class":"COURSE_UPLOAD",...}` or `{"class":"WORKOUT_UPLOAD",...}`: the
/// reply to the announcement (the upload is open, `seq` null) and to each
/// piece but the last, whose reply is the stored `COURSE` or `WORKOUT` (or an
/// `ERROR`): every line gets one reply.
public struct UploadReply: Codable, Sendable, Equatable {
    public var cls: String
    /// The piece just received; null in the reply to the announcement.
    @NullCoded public var seq: Int?
    /// Bytes received so far, and announced; pieces announced.
    public var received: Int
    public var bytes: Int
    public var chunks: Int
    public var id: JSONValue?

    public init(kind: UploadKind, seq: Int?, received: Int, bytes: Int, chunks: Int, id: JSONValue? = nil) {
        cls = kind.replyClass
        self.seq = seq
        self.received = received
        self.bytes = bytes
        self.chunks = chunks
        self.id = id
    }

    enum CodingKeys: String, CodingKey { case cls = "class", seq, received, bytes, chunks, id }
}
