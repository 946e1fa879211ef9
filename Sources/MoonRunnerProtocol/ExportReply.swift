import FoundationEssentials

/// An exported session file as the daemon hands it to the control server.
public struct ExportFile: Sendable, Equatable {
    public var session: Int64
    /// gpx, tcx, fit, geojson, csv or svg.
    public var format: String
    /// e.g. `application/gpx+xml`.
    public var mediaType: String
    public var data: Data

    public init(session: Int64, format: String, mediaType: String, data: Data) {
        self.session = session
        self.format = format
        self.mediaType = mediaType
        self.data = data
    }
}

/// `{"class":"EXPORT",...}`: announces an exported file. Exactly `chunks`
/// `EXPORT_DATA` lines follow it, in order, with no other line between them,
/// so that a big file streams in bounded pieces instead of one huge line.
public struct ExportReply: Codable, Sendable, Equatable {
    public var cls = "EXPORT"
    public var session: Int64
    public var format: String
    public var mediaType: String
    /// `utf8` (the chunks are the file's text) or `base64` (binary files such as FIT).
    public var encoding: String
    /// Size of the file in bytes, after decoding.
    public var bytes: Int
    /// Number of `EXPORT_DATA` lines that follow.
    public var chunks: Int
    public var id: JSONValue?

    public init(session: Int64, format: String, mediaType: String, encoding: String, bytes: Int, chunks: Int,
                id: JSONValue? = nil) {
        self.session = session
        self.format = format
        self.mediaType = mediaType
        self.encoding = encoding
        self.bytes = bytes
        self.chunks = chunks
        self.id = id
    }

    enum CodingKeys: String, CodingKey {
        case cls = "class", session, format, mediaType = "media_type", encoding, bytes, chunks, id
    }
}

/// `{"class":"EXPORT_DATA","seq":N,"data":"..."}`: one piece of an exported file.
public struct ExportDataReply: Codable, Sendable, Equatable {
    public var cls = "EXPORT_DATA"
    public var session: Int64
    /// 0, 1, 2, ... up to `chunks - 1` of the `EXPORT` line.
    public var seq: Int
    /// The piece, encoded as the `EXPORT` line says (UTF-8 pieces never split a character).
    public var data: String
    public var id: JSONValue?

    public init(session: Int64, seq: Int, data: String, id: JSONValue? = nil) {
        self.session = session
        self.seq = seq
        self.data = data
        self.id = id
    }

    enum CodingKeys: String, CodingKey { case cls = "class", session, seq, data, id }
}

/// Cuts an `ExportFile` into the `EXPORT` line and its `EXPORT_DATA` lines,
/// one line at a time, so that the server holds one piece, not the whole
/// encoded reply.
public struct ExportStream: Sendable {
    /// Bytes of the file per `EXPORT_DATA` line (before encoding).
    public static let defaultChunkBytes = 48 * 1024

    public let header: ExportReply
    private let file: ExportFile
    private let ranges: [Range<Int>]
    private let base64: Bool

    public init(file: ExportFile, id: JSONValue?, chunkBytes: Int = ExportStream.defaultChunkBytes) {
        self.file = file
        let size = max(4, chunkBytes)
        let (isText, ranges) = file.data.withUnsafeBytes { raw -> (Bool, [Range<Int>]) in
            let bytes = raw.bindMemory(to: UInt8.self)
            let isText = String(validating: bytes, as: UTF8.self) != nil
            var ranges: [Range<Int>] = []
            var start = 0
            while start < bytes.count {
                var end = min(bytes.count, start + size)
                // A UTF-8 piece ends before a continuation byte, never inside a character.
                if isText { while end < bytes.count, end > start + 1, bytes[end] & 0xC0 == 0x80 { end -= 1 } }
                ranges.append(start..<end)
                start = end
            }
            return (isText, ranges)
        }
        base64 = !isText
        self.ranges = ranges
        header = ExportReply(session: file.session, format: file.format, mediaType: file.mediaType,
                             encoding: isText ? "utf8" : "base64", bytes: file.data.count, chunks: ranges.count, id: id)
    }

    /// The `EXPORT` line.
    public var headerLine: String { ReplyEncoder.line(header) }

    /// Number of `EXPORT_DATA` lines.
    public var chunkCount: Int { ranges.count }

    /// The `EXPORT_DATA` line number `seq`.
    public func chunkLine(_ seq: Int) -> String {
        let piece = file.data[file.data.startIndex + ranges[seq].lowerBound ..< file.data.startIndex + ranges[seq].upperBound]
        let text = base64 ? piece.base64EncodedString() : String(decoding: piece, as: UTF8.self)
        return ReplyEncoder.line(ExportDataReply(session: file.session, seq: seq, data: text, id: header.id))
    }
}

/// Puts an exported file back together on the client side, checking order
/// and size, and handing out each decoded piece so that it can be written
/// straight to a file.
public struct ExportAssembler: Sendable {
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    public let header: ExportReply
    public private(set) var received = 0
    public private(set) var bytes = 0

    public init(header: ExportReply) throws(Failure) {
        guard header.encoding == "utf8" || header.encoding == "base64" else {
            throw Failure(description: "unknown export encoding \(header.encoding)")
        }
        self.header = header
    }

    /// True once every announced piece has arrived.
    public var isComplete: Bool { received == header.chunks }

    /// Decodes the next piece; it must be the one expected.
    public mutating func accept(_ chunk: ExportDataReply) throws(Failure) -> Data {
        guard chunk.seq == received, received < header.chunks else {
            throw Failure(description: "export piece \(chunk.seq) arrived, \(received) was expected")
        }
        let data: Data
        if header.encoding == "base64" {
            guard let d = Data(base64Encoded: chunk.data) else {
                throw Failure(description: "export piece \(chunk.seq) is not valid base64")
            }
            data = d
        } else {
            data = Data(chunk.data.utf8)
        }
        received += 1
        bytes += data.count
        guard bytes <= header.bytes else {
            throw Failure(description: "the export is longer than the announced \(header.bytes) bytes")
        }
        if isComplete, bytes != header.bytes {
            throw Failure(description: "the export has \(bytes) bytes, \(header.bytes) were announced")
        }
        return data
    }
}
