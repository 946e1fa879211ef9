import FoundationEssentials
import MoonRunnerCore

/// Parses request lines. Strict about the frame and the parameters (a typo in
/// a key is an error, not a silently ignored value), lenient about whitespace
/// around the request and the case of its name.
public enum RequestParser {
    /// Formats `?EXPORT` accepts (the writers of MoonRunnerExport).
    public static let exportFormats = ["gpx", "tcx", "fit", "geojson", "csv", "svg"]

    /// Activities `?START` accepts.
    public static var activities: [String] { Activity.allCases.map(\.rawValue) }

    /// Formats a course may be uploaded in.
    public static var courseFormats: [String] { UploadKind.course.formats }

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
        guard let commandName = CommandName(rawValue: name.uppercased()) else {
            let known = CommandName.allCases.map { "?\($0.rawValue);" }.joined(separator: " ")
            throw RequestError(.unknownCommand, "unknown request ?\(name); known: \(known)", id: id)
        }
        let allowed = ["id"] + commandName.parameters
        if let unknown = params.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw RequestError(.badParameter, "?\(commandName.rawValue) has no parameter \"\(unknown.prefix(40))\"; it takes "
                + allowed.map { "\"\($0)\"" }.joined(separator: ", "), id: id)
        }
        let parameters = Parameters(values: params, name: commandName, id: id)
        return Request(command: try command(commandName, parameters), id: id)
    }

    /// Session and course ids: positive, and exact in a JSON number (a double).
    private static let ids: ClosedRange<Int64> = 1...(1 << 52)

    private static func command(_ name: CommandName, _ p: Parameters) throws(RequestError) -> Request.Command {
        switch name {
        case .version: return .version
        case .status: return .status
        case .watch:
            guard let v = p["enable"] else { return .watch(enable: true) }
            guard case let .bool(b) = v else { throw p.bad("\"enable\" must be true or false, e.g. ?WATCH={\"enable\":true};") }
            return .watch(enable: b)
        case .start: return try start(p)
        case .pause: return .pause
        case .resume: return .resume
        case .lap: return .lap
        case .stop: return .stop
        case .sessions:
            let limit = try p.int("limit", range: 1...1000) ?? 20
            return .sessions(limit: Int(limit), before: try p.int("before", range: ids))
        case .session: return .session(id: try p.needed("id", range: ids))
        case .export: return try export(p)
        case .badges: return .badges
        case .delete: return .delete(id: try p.needed("id", range: ids))
        case .config: return .config
        case .courses: return .courses
        case .course: return .course(id: try p.needed("id", range: ids))
        case .courseDelete: return .courseDelete(id: try p.needed("id", range: ids))
        case .courseAdd: return .courseAdd(try upload(p, kind: .course))
        case .courseData:
            let (seq, data) = try piece(p, kind: .course)
            return .courseData(seq: seq, data: data)
        case .announce:
            guard case let .bool(q)? = p["quiet"] else {
                throw p.bad("?ANNOUNCE needs \"quiet\": true or false, e.g. ?ANNOUNCE={\"quiet\":true};")
            }
            return .announce(quiet: q)
        case .workouts: return .workouts
        case .workout: return .workout(id: try p.needed("id", range: ids))
        case .workoutDelete: return .workoutDelete(id: try p.needed("id", range: ids))
        case .workoutAdd: return .workoutAdd(try upload(p, kind: .workout))
        case .workoutData:
            let (seq, data) = try piece(p, kind: .workout)
            return .workoutData(seq: seq, data: data)
        }
    }

    /// The parameters of `?START`: an activity, a course to follow, a point to head for.
    private static func start(_ p: Parameters) throws(RequestError) -> Request.Command {
        var activity: String?
        if let v = p["activity"] {
            guard case let .string(s) = v, activities.contains(s) else {
                throw p.bad("\"activity\" must be one of \(activities.joined(separator: ", ")), e.g. ?START={\"activity\":\"run\"};")
            }
            activity = s
        }
        let course = try p.int("course", range: ids)
        let workout = try p.int("workout", range: ids)
        var destination: GeoPoint?
        if let v = p["to"] {
            guard case let .array(a) = v, a.count == 2, case let .number(lat) = a[0], case let .number(lon) = a[1],
                  GeoPoint(latitude: lat, longitude: lon).isValid else {
                throw p.bad("\"to\" must be [latitude, longitude] in degrees, e.g. ?START={\"to\":[51.5007,-0.1246]};")
            }
            destination = GeoPoint(latitude: lat, longitude: lon)
        }
        return .start(activity: activity, course: course, destination: destination, workout: workout)
    }

    /// The parameters of `?EXPORT`: the session and one of the writers' formats.
    private static func export(_ p: Parameters) throws(RequestError) -> Request.Command {
        let i = try p.needed("id", range: ids)
        guard case let .string(f)? = p["format"], exportFormats.contains(f.lowercased()) else {
            throw p.bad("?EXPORT needs \"format\": one of \(exportFormats.joined(separator: ", ")), "
                + "e.g. ?EXPORT={\"id\":\(i),\"format\":\"gpx\"};")
        }
        guard let zones = p["privacy"] else { return .export(id: i, format: f.lowercased()) }
        return .exportPrivate(id: i, format: f.lowercased(), zones: try privacy(zones, p))
    }

    /// `"privacy"`: `[[lat, lon, radius_m], ...]`, at most 16 zones of 100–2000 m.
    private static func privacy(_ v: JSONValue, _ p: Parameters) throws(RequestError) -> [PrivacyZone] {
        let bad = p.bad("\"privacy\" must be a list of at most 16 zones [latitude, longitude, radius_m] with radii of "
            + "100–2000 m, e.g. \"privacy\":[[51.5007,-0.1246,300]]")
        guard case let .array(list) = v, list.count <= 16 else { throw bad }
        var zones: [PrivacyZone] = []
        for item in list {
            guard case let .array(a) = item, a.count == 3, case let .number(lat) = a[0], case let .number(lon) = a[1],
                  case let .number(r) = a[2] else { throw bad }
            let zone = PrivacyZone(latitude: lat, longitude: lon, radiusM: r)
            guard zone.isValid else { throw bad }
            zones.append(zone)
        }
        return zones
    }

    /// The parameters of `?COURSE_ADD` and `?WORKOUT_ADD`; the size limit is the daemon's to check.
    private static func upload(_ p: Parameters, kind: UploadKind) throws(RequestError) -> UploadHeader {
        let request = "?" + kind.announce.rawValue, pieces = "?" + kind.piece.rawValue
        var name: String?
        if let v = p["name"] {
            guard case let .string(s) = v, s.count <= 200 else { throw p.bad("\"name\" must be a string of at most 200 characters") }
            name = s
        }
        var format: String?
        if let v = p["format"] {
            guard case let .string(f) = v, kind.formats.contains(f.lowercased()) else {
                throw p.bad("\"format\" must be one of \(kind.formats.joined(separator: ", ")) (or left out: the daemon looks)")
            }
            format = f.lowercased()
        }
        var encoding = "base64"
        if let v = p["encoding"] {
            guard case let .string(e) = v, e == "base64" || e == "utf8" else { throw p.bad("\"encoding\" must be base64 or utf8") }
            encoding = e
        }
        guard case let .number(b)? = p["bytes"], b.rounded() == b, b >= 1, b <= Double(UploadHeader.maxBytes) else {
            throw p.bad("\(request) needs \"bytes\": the file's size, an integer from 1")
        }
        guard case let .number(c)? = p["chunks"], c.rounded() == c, c >= 1, c <= min(b, Double(UploadHeader.maxChunks)) else {
            throw p.bad("\(request) needs \"chunks\": how many \(pieces) lines follow, from 1 to \"bytes\"")
        }
        return UploadHeader(kind: kind, name: name, format: format, encoding: encoding, bytes: Int(b), chunks: Int(c))
    }

    /// The parameters of `?COURSE_DATA` and `?WORKOUT_DATA`: one piece of the file announced.
    private static func piece(_ p: Parameters, kind: UploadKind) throws(RequestError) -> (seq: Int, data: String) {
        let seq = try p.needed("seq", range: 0...Int64(UploadHeader.maxChunks))
        guard case let .string(data)? = p["data"] else {
            let request = "?" + kind.piece.rawValue
            throw p.bad("\(request) needs \"data\": a piece of the file, e.g. \(request)={\"seq\":0,\"data\":\"...\"};")
        }
        return (Int(seq), data)
    }

    /// One request's parameters, read with messages that name the request.
    private struct Parameters {
        let values: [String: JSONValue]
        let name: CommandName
        let id: JSONValue?

        subscript(key: String) -> JSONValue? { values[key] }

        func bad(_ message: String) -> RequestError { RequestError(.badParameter, message, id: id) }

        /// An integer in `range`; nil when the request does not give it.
        func int(_ key: String, range: ClosedRange<Int64>) throws(RequestError) -> Int64? {
            guard let v = values[key] else { return nil }
            guard case let .number(d) = v, d.rounded() == d, d >= Double(range.lowerBound), d <= Double(range.upperBound) else {
                throw bad("\"\(key)\" must be an integer from \(range.lowerBound) to \(range.upperBound)")
            }
            return Int64(d)
        }

        /// An integer in `range` the request cannot do without.
        func needed(_ key: String, range: ClosedRange<Int64>) throws(RequestError) -> Int64 {
            guard let v = try int(key, range: range) else {
                throw bad("?\(name.rawValue) needs \"\(key)\", e.g. ?\(name.rawValue)={\"\(key)\":12};")
            }
            return v
        }
    }
}
