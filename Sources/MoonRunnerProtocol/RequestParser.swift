import FoundationEssentials
import MoonRunnerCore

/// Parses request lines. Strict about the frame and the parameters (a typo in
/// a key is an error, not a silently ignored value), lenient about whitespace
/// around the request and the case of its name.
public enum RequestParser {
    public static let knownCommands = ["VERSION", "STATUS", "WATCH", "START", "PAUSE", "RESUME", "LAP", "STOP",
                                       "SESSIONS", "SESSION", "EXPORT", "BADGES", "DELETE", "CONFIG",
                                       "COURSES", "COURSE", "COURSE_DELETE", "COURSE_ADD", "COURSE_DATA", "ANNOUNCE"]

    /// Formats `?EXPORT` accepts (the writers of MoonRunnerExport).
    public static let exportFormats = ["gpx", "tcx", "fit", "geojson", "csv", "svg"]

    /// Activities `?START` accepts.
    public static var activities: [String] { Activity.allCases.map(\.rawValue) }

    /// Parameters each request accepts besides `"id"`.
    static let parameters: [String: [String]] = [
        "WATCH": ["enable"], "START": ["activity", "course", "to"], "SESSIONS": ["limit", "before"],
        "EXPORT": ["format"], "COURSE_ADD": ["name", "format", "encoding", "bytes", "chunks"],
        "COURSE_DATA": ["seq", "data"], "ANNOUNCE": ["quiet"],
    ]

    /// Formats a course may be uploaded in.
    public static let courseFormats = ["gpx", "tcx", "fit"]

    /// True for a line the server ignores: empty, or only spaces, tabs and CR.
    /// Every other complete line gets exactly one reply.
    public static func isBlank(_ line: some Collection<UInt8>) -> Bool {
        line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
    }

    public static func parse(_ raw: String) throws(RequestError) -> Request {
        var line = Substring(raw)
        while let last = line.last, last == " " || last == "\t" || last == "\r" || last == "\r\n" { line.removeLast() }
        while let first = line.first, first == " " || first == "\t" { line.removeFirst() }
        guard line.first == "?" else {
            throw RequestError(.syntax, "a request starts with '?' and ends with ';', e.g. ?STATUS;")
        }
        line.removeFirst()
        if line.last == ";" { line.removeLast() }
        let name: Substring
        var params: [String: JSONValue] = [:]
        if let eq = line.firstIndex(of: "=") {
            name = line[..<eq]
            let json = line[line.index(after: eq)...]
            guard let value = try? JSONValue.parse(String(json)) else {
                throw RequestError(.badJSON, "the parameters of ?\(name.prefix(20)) are not valid JSON (\(json.prefix(60))); "
                    + "write a JSON object, e.g. ?SESSION={\"id\":12};")
            }
            guard case let .object(obj) = value else {
                throw RequestError(.badJSON, "the parameters of ?\(name.prefix(20)) must be a JSON object, e.g. ?SESSION={\"id\":12};")
            }
            params = obj
        } else {
            name = line
        }
        // Any request may carry "id"; the reply echoes it. For ?SESSION, ?EXPORT
        // and ?DELETE the id is also the session's, so the echo is the same number.
        let id = params["id"]
        guard !name.isEmpty, name.utf8.count <= 20, name.first != "_",
              name.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "_") }) else {
            throw RequestError(.syntax, "a request name is letters (and _) only, e.g. ?STATUS;", id: id)
        }
        let upper = name.uppercased()
        guard knownCommands.contains(upper) else {
            throw RequestError(.unknownCommand, "unknown request ?\(name); known: \(knownCommands.map { "?\($0);" }.joined(separator: " "))", id: id)
        }
        let allowed = ["id"] + (parameters[upper] ?? [])
        if let unknown = params.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw RequestError(.badParameter, "?\(upper) has no parameter \"\(unknown.prefix(40))\"; it takes "
                + allowed.map { "\"\($0)\"" }.joined(separator: ", "), id: id)
        }
        return Request(command: try command(upper, params, id: id), id: id)
    }

    private static func command(_ name: String, _ p: [String: JSONValue], id: JSONValue?) throws(RequestError) -> Request.Command {
        func bad(_ message: String) -> RequestError { RequestError(.badParameter, message, id: id) }
        func intParam(_ key: String, required: Bool, range: ClosedRange<Int64>) throws(RequestError) -> Int64? {
            guard let v = p[key] else {
                if required { throw bad("?\(name) needs \"\(key)\", e.g. ?\(name)={\"\(key)\":12};") }
                return nil
            }
            guard case let .number(d) = v, d.rounded() == d, d >= Double(range.lowerBound), d <= Double(range.upperBound) else {
                throw bad("\"\(key)\" must be an integer from \(range.lowerBound) to \(range.upperBound)")
            }
            return Int64(d)
        }
        let sessionIDs: ClosedRange<Int64> = 1...(1 << 52)
        switch name {
        case "VERSION": return .version
        case "STATUS": return .status
        case "WATCH":
            guard let v = p["enable"] else { return .watch(enable: true) }
            guard case let .bool(b) = v else { throw bad("\"enable\" must be true or false, e.g. ?WATCH={\"enable\":true};") }
            return .watch(enable: b)
        case "START":
            var activity: String?
            if let v = p["activity"] {
                guard case let .string(s) = v, activities.contains(s) else {
                    throw bad("\"activity\" must be one of \(activities.joined(separator: ", ")), e.g. ?START={\"activity\":\"run\"};")
                }
                activity = s
            }
            let course = try intParam("course", required: false, range: sessionIDs)
            var destination: GeoPoint?
            if let v = p["to"] {
                guard case let .array(a) = v, a.count == 2, case let .number(lat) = a[0], case let .number(lon) = a[1],
                      GeoPoint(latitude: lat, longitude: lon).isValid else {
                    throw bad("\"to\" must be [latitude, longitude] in degrees, e.g. ?START={\"to\":[51.5007,-0.1246]};")
                }
                destination = GeoPoint(latitude: lat, longitude: lon)
            }
            return .start(activity: activity, course: course, destination: destination)
        case "PAUSE": return .pause
        case "RESUME": return .resume
        case "LAP": return .lap
        case "STOP": return .stop
        case "SESSIONS":
            let limit = try intParam("limit", required: false, range: 1...1000) ?? 20
            let before = try intParam("before", required: false, range: sessionIDs)
            return .sessions(limit: Int(limit), before: before)
        case "SESSION":
            guard let i = try intParam("id", required: true, range: sessionIDs) else { throw bad("?SESSION needs \"id\"") }
            return .session(id: i)
        case "DELETE":
            guard let i = try intParam("id", required: true, range: sessionIDs) else { throw bad("?DELETE needs \"id\"") }
            return .delete(id: i)
        case "EXPORT":
            guard let i = try intParam("id", required: true, range: sessionIDs) else { throw bad("?EXPORT needs \"id\"") }
            guard case let .string(f)? = p["format"], exportFormats.contains(f.lowercased()) else {
                throw bad("?EXPORT needs \"format\": one of \(exportFormats.joined(separator: ", ")), "
                    + "e.g. ?EXPORT={\"id\":\(i),\"format\":\"gpx\"};")
            }
            return .export(id: i, format: f.lowercased())
        case "BADGES": return .badges
        case "CONFIG": return .config
        case "COURSES": return .courses
        case "COURSE":
            guard let i = try intParam("id", required: true, range: sessionIDs) else { throw bad("?COURSE needs \"id\"") }
            return .course(id: i)
        case "COURSE_DELETE":
            guard let i = try intParam("id", required: true, range: sessionIDs) else { throw bad("?COURSE_DELETE needs \"id\"") }
            return .courseDelete(id: i)
        case "COURSE_ADD":
            return .courseAdd(try courseUpload(p, bad: bad))
        case "COURSE_DATA":
            guard let seq = try intParam("seq", required: true, range: 0...Int64(CourseUploadHeader.maxChunks)) else {
                throw bad("?COURSE_DATA needs \"seq\"")
            }
            guard case let .string(data)? = p["data"] else {
                throw bad("?COURSE_DATA needs \"data\": a piece of the file, e.g. ?COURSE_DATA={\"seq\":0,\"data\":\"...\"};")
            }
            return .courseData(seq: Int(seq), data: data)
        case "ANNOUNCE":
            guard case let .bool(q)? = p["quiet"] else {
                throw bad("?ANNOUNCE needs \"quiet\": true or false, e.g. ?ANNOUNCE={\"quiet\":true};")
            }
            return .announce(quiet: q)
        default:
            throw RequestError(.unknownCommand, "unknown request ?\(name);", id: id)
        }
    }

    /// The parameters of `?COURSE_ADD`; the size limit is the daemon's to check.
    private static func courseUpload(_ p: [String: JSONValue],
                                     bad: (String) -> RequestError) throws(RequestError) -> CourseUploadHeader {
        var name: String?
        if let v = p["name"] {
            guard case let .string(s) = v, s.count <= 200 else { throw bad("\"name\" must be a string of at most 200 characters") }
            name = s
        }
        var format: String?
        if let v = p["format"] {
            guard case let .string(f) = v, courseFormats.contains(f.lowercased()) else {
                throw bad("\"format\" must be one of \(courseFormats.joined(separator: ", ")) (or left out: the daemon looks)")
            }
            format = f.lowercased()
        }
        var encoding = "base64"
        if let v = p["encoding"] {
            guard case let .string(e) = v, e == "base64" || e == "utf8" else { throw bad("\"encoding\" must be base64 or utf8") }
            encoding = e
        }
        guard case let .number(b)? = p["bytes"], b.rounded() == b, b >= 1, b <= Double(CourseUploadHeader.maxBytes) else {
            throw bad("?COURSE_ADD needs \"bytes\": the file's size, an integer from 1 (see course.max_upload_kb)")
        }
        guard case let .number(c)? = p["chunks"], c.rounded() == c, c >= 1, c <= min(b, Double(CourseUploadHeader.maxChunks)) else {
            throw bad("?COURSE_ADD needs \"chunks\": how many ?COURSE_DATA lines follow, from 1 to \"bytes\"")
        }
        return CourseUploadHeader(name: name, format: format, encoding: encoding, bytes: Int(b), chunks: Int(c))
    }
}
