import FoundationEssentials
import MoonRunnerCore

/// What `?COURSE_ADD` announces: the file that `chunks` `?COURSE_DATA`
/// lines will carry, `bytes` bytes in all, each piece `encoding`-encoded.
public struct CourseUploadHeader: Sendable, Equatable {
    /// The course's name (default: the file's own, else "course").
    public var name: String?
    /// gpx, tcx or fit; nil: the daemon looks at the file.
    public var format: String?
    /// base64 or utf8, as `EXPORT_DATA`.
    public var encoding: String
    public var bytes: Int
    public var chunks: Int

    /// Hard limits of the protocol (the daemon's `course.max_upload_kb` is lower).
    public static let maxBytes = 64 << 20
    public static let maxChunks = 1 << 20

    public init(name: String?, format: String?, encoding: String, bytes: Int, chunks: Int) {
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
public struct CourseUpload: Sendable {
    public let header: CourseUploadHeader
    public private(set) var received = 0
    public private(set) var data: Data

    public init(_ header: CourseUploadHeader) {
        self.header = header
        data = Data()
        data.reserveCapacity(header.bytes)
    }

    /// True once every announced piece has arrived.
    public var isComplete: Bool { received == header.chunks }

    /// Adds piece `seq`; throws (with a message for the client) when it is
    /// out of order, does not decode or goes past the announced size.
    public mutating func accept(seq: Int, data text: String) throws(RequestError) {
        guard seq == received else {
            throw RequestError(.badParameter, "?COURSE_DATA piece \(seq) arrived, \(received) was expected; "
                + "the upload was dropped, start again with ?COURSE_ADD")
        }
        let piece: Data
        if header.encoding == "base64" {
            guard let d = Data(base64Encoded: text) else {
                throw RequestError(.badParameter, "?COURSE_DATA piece \(seq) is not valid base64; the upload was dropped")
            }
            piece = d
        } else {
            piece = Data(text.utf8)
        }
        guard data.count + piece.count <= header.bytes else {
            throw RequestError(.badParameter, "the upload is longer than the announced \(header.bytes) bytes; it was dropped")
        }
        data.append(piece)
        received += 1
        if isComplete && data.count != header.bytes {
            throw RequestError(.badParameter, "the upload has \(data.count) bytes, \(header.bytes) were announced; it was dropped")
        }
    }

    /// The request lines that upload `file`: `?COURSE_ADD` and its
    /// `?COURSE_DATA` pieces, base64, each line well under 4096 bytes.
    public static func lines(for file: Data, name: String?, format: String?, chunkBytes: Int = defaultChunkBytes) -> [String] {
        let size = max(3, chunkBytes - chunkBytes % 3)
        var pieces: [Data] = []
        var start = file.startIndex
        while start < file.endIndex {
            let end = min(file.endIndex, start + size)
            pieces.append(file[start..<end])
            start = end
        }
        let header = CourseUploadHeader(name: name, format: format, encoding: "base64", bytes: file.count,
                                        chunks: max(1, pieces.count))
        var lines = [Request(command: .courseAdd(header)).line]
        for (seq, piece) in pieces.enumerated() {
            lines.append(Request(command: .courseData(seq: seq, data: piece.base64EncodedString())).line)
        }
        return lines
    }

    /// File bytes per `?COURSE_DATA` line: 2 KiB become 2732 base64
    /// characters, a line of about 2.8 KB (the default line limit is 4096).
    public static let defaultChunkBytes = 2046
}

/// `{"class":"COURSE_UPLOAD",...}`: the reply to `?COURSE_ADD` (the upload
/// is open, `seq` null) and to each `?COURSE_DATA` piece but the last, whose
/// reply is the stored `COURSE` (or an `ERROR`): every line gets one reply.
public struct CourseUploadReply: Codable, Sendable, Equatable {
    public var cls = "COURSE_UPLOAD"
    /// The piece just received; null in the reply to `?COURSE_ADD`.
    @NullCoded public var seq: Int?
    /// Bytes received so far, and announced; pieces announced.
    public var received: Int
    public var bytes: Int
    public var chunks: Int
    public var id: JSONValue?

    public init(seq: Int?, received: Int, bytes: Int, chunks: Int, id: JSONValue? = nil) {
        self.seq = seq
        self.received = received
        self.bytes = bytes
        self.chunks = chunks
        self.id = id
    }

    enum CodingKeys: String, CodingKey { case cls = "class", seq, received, bytes, chunks, id }
}
