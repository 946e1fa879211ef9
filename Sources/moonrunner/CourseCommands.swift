import ArgumentParser
import FoundationEssentials
import Glibc
import MoonRunnerCore
import MoonRunnerProtocol
import MoonRunnerSystem

// The course library: ?COURSES, ?COURSE, ?COURSE_DELETE and the upload
// (?COURSE_ADD with its ?COURSE_DATA pieces).

struct CourseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "course",
        abstract: "Planned courses to follow: add a GPX, TCX or FIT file, list, show, delete.",
        discussion: "Follow one with `moonrunner start --course ID`.",
        subcommands: [CourseAdd.self, CourseList.self, CourseShow.self, CourseDelete.self])
}

struct CourseAdd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a course from a GPX (trk or rte), TCX (Course) or FIT (course) file (?COURSE_ADD).",
        discussion: "The file is sent to the daemon in pieces and stored once complete and readable; a file that "
            + "is not a course is refused and nothing is stored.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "The course file.", completion: .file(extensions: ["gpx", "tcx", "fit"])) var file: String
    @Option(help: "Name of the course (default: the name in the file, else \"course\").") var name: String?
    @Option(help: "gpx, tcx or fit (default: from the file's extension, else the daemon looks at it).",
            completion: .list(RequestParser.courseFormats))
    var format: String?

    func validate() throws {
        if let f = format, !RequestParser.courseFormats.contains(f.lowercased()) {
            throw ValidationError("--format must be one of \(RequestParser.courseFormats.joined(separator: ", "))")
        }
        if let n = name, n.count > 200 { throw ValidationError("--name may have at most 200 characters") }
    }

    func run() throws {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw fail("cannot read \(file): \(fileErrorText(error))", ExitCodes.ioError)
        }
        guard !data.isEmpty else { throw fail("\(file) is empty: not a course", ExitCodes.dataError) }
        let ext = URL(filePath: file, directoryHint: .notDirectory).pathExtension.lowercased()
        let kind = format?.lowercased() ?? (RequestParser.courseFormats.contains(ext) ? ext : nil)
        let (reply, client) = try options.upload(FileUpload.lines(for: data, kind: .course, name: name, format: kind))
        if options.json { out(reply); return }
        let r = try options.decode(CourseReply.self, reply)
        out("added course #\(r.course.id)")
        out(Display.course(r.course, units: options.units(client: client)))
    }
}

struct CourseList: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the courses, newest first (?COURSES).")
    @OptionGroup var options: ClientOptions

    func run() throws {
        let client = try options.connect()
        let reply = try options.call(.courses, on: client)
        if options.json { out(reply); return }
        let r = try options.decode(CoursesReply.self, reply)
        out(Display.courses(r.courses, units: options.units(client: client)))
    }
}

struct CourseShow: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show",
                                                    abstract: "Show a course: length, climb, bounds (?COURSE).")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Course id (see `moonrunner course list`).") var id: Int64

    func run() throws {
        let client = try options.connect()
        let reply = try options.call(.course(id: id), on: client)
        if options.json { out(reply); return }
        let r = try options.decode(CourseReply.self, reply)
        out(Display.course(r.course, units: options.units(client: client)))
    }
}

struct CourseDelete: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a course (?COURSE_DELETE).")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Course id (see `moonrunner course list`).") var id: Int64

    func run() throws {
        let reply = try options.call(.courseDelete(id: id))
        if options.json { out(reply); return }
        let r = try options.decode(CourseDeletedReply.self, reply)
        out("deleted course #\(r.course)")
    }
}
