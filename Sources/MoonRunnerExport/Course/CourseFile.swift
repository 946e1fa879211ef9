import FoundationEssentials
import MoonRunnerCore

/// The file formats a course is read from: the export formats' mirror image.
public enum CourseFileFormat: String, Sendable, CaseIterable {
    case gpx, tcx, fit

    /// The format a file's first bytes show, nil when none of the three.
    public static func sniff(_ data: Data) -> CourseFileFormat? {
        let head = [UInt8](data.prefix(4096))
        if head.count >= 12, Array(head[8..<12]) == Array(".FIT".utf8), head[0] == 12 || head[0] == 14 { return .fit }
        let text = String(decoding: head, as: UTF8.self)
        guard let first = text.first(where: { !$0.isWhitespace && $0 != "\u{FEFF}" }), first == "<" else { return nil }
        if text.contains("<gpx") || text.contains(":gpx") { return .gpx }
        if text.contains("<TrainingCenterDatabase") || text.contains(":TrainingCenterDatabase") { return .tcx }
        return nil
    }

    /// The format a file name's extension names.
    public init?(fileName: String) {
        let ext = URL(filePath: fileName, directoryHint: .notDirectory).pathExtension.lowercased()
        self.init(rawValue: ext)
    }
}

/// Why a file is not a course: what is wrong and where (line of an XML
/// file, byte offset of a FIT file).
public struct CourseFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Reads planned courses from GPX (`trk` or `rte`), TCX (`Course`, or an
/// activity's track) and FIT (course or activity `record`s). Only the
/// points are trusted: summary fields such as a TCX `BeginPosition` (0,0 in
/// gpsbabel's files) or a FIT lap's distance are never read. A file that is
/// not a course is refused with a message that says why.
public enum CourseFile {
    /// More points than this are refused (a 1000 km course at one point every 5 m).
    public static let maxPoints = 200_000

    /// Reads `data` as `format` (sniffed from its first bytes when nil). The
    /// course gets `name` when given, else the file's own name, else "course".
    public static func read(_ data: Data, format: CourseFileFormat? = nil,
                            name: String? = nil) throws(CourseFileError) -> Course {
        guard !data.isEmpty else { throw CourseFileError("the file is empty") }
        let sniffed = CourseFileFormat.sniff(data)
        if let format, let sniffed, format != sniffed {
            throw CourseFileError("the file was sent as \(format.rawValue) but is \(sniffed.rawValue.uppercased())")
        }
        guard let kind = format ?? sniffed else {
            throw CourseFileError("not a GPX, TCX or FIT file (it starts with \(describe(data.prefix(8))))")
        }
        var course: Course
        switch kind {
        case .gpx: course = try GPXCourseReader.read(data)
        case .tcx: course = try TCXCourseReader.read(data)
        case .fit: course = try FITCourseReader.read(data)
        }
        do {
            _ = try CourseGeometry(course.points)
        } catch {
            throw CourseFileError("\(kind.rawValue.uppercased()): \(error.message)")
        }
        let given = name?.trimmingSpacesAndNewlines() ?? ""
        let own = course.name.trimmingSpacesAndNewlines()
        course.name = String((given.isEmpty ? (own.isEmpty ? "course" : own) : given).prefix(200))
        return course
    }

    private static func describe(_ bytes: Data) -> String {
        bytes.map { b in (0x20..<0x7F).contains(b) ? String(UnicodeScalar(b)) : "\\x\(b.hex(width: 2))" }.joined()
    }
}
