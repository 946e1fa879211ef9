import Foundation

/// Parses request lines. Strict about the frame, lenient about whitespace.
public enum RequestParser {
    public static let knownCommands = ["VERSION", "STATUS", "WATCH", "START", "PAUSE", "RESUME", "LAP", "STOP",
                                       "SESSIONS", "SESSION", "EXPORT", "BADGES", "DELETE", "CONFIG"]

    public static func parse(_ raw: String) throws(RequestError) -> Request {
        var line = Substring(raw)
        while let last = line.last, last.isWhitespace { line.removeLast() }
        while let first = line.first, first.isWhitespace { line.removeFirst() }
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
                throw RequestError(.badJSON, "the parameters of ?\(name) are not valid JSON: \(json.prefix(80))")
            }
            guard case let .object(obj) = value else {
                throw RequestError(.badJSON, "the parameters of ?\(name) must be a JSON object, e.g. ?\(name)={...};")
            }
            params = obj
        } else {
            name = line
        }
        // Any request may carry "id"; the reply echoes it. For ?SESSION, ?EXPORT
        // and ?DELETE the id is also the session's, so the echo is the same number.
        let id = params["id"]
        let upper = name.uppercased()
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter }) else {
            throw RequestError(.syntax, "a request name is letters only, e.g. ?STATUS;", id: id)
        }
        guard knownCommands.contains(upper) else {
            throw RequestError(.unknownCommand, "unknown request ?\(name); known: \(knownCommands.map { "?\($0);" }.joined(separator: " "))", id: id)
        }
        return Request(command: try command(upper, params, id: id), id: id)
    }

    private static func command(_ name: String, _ p: [String: JSONValue], id: JSONValue?) throws(RequestError) -> Request.Command {
        func bad(_ message: String) -> RequestError { RequestError(.badParameter, message, id: id) }
        func intParam(_ key: String, required: Bool, range: ClosedRange<Int64>) throws(RequestError) -> Int64? {
            guard let v = p[key] else {
                if required { throw bad("?\(name) needs \"\(key)\", e.g. ?\(name)={\"\(key)\":1};") }
                return nil
            }
            guard case let .number(d) = v, d.rounded() == d, d >= Double(range.lowerBound), d <= Double(range.upperBound) else {
                throw bad("\"\(key)\" must be an integer in \(range.lowerBound)...\(range.upperBound)")
            }
            return Int64(d)
        }
        switch name {
        case "VERSION": return .version
        case "STATUS": return .status
        case "WATCH":
            guard let v = p["enable"] else { return .watch(enable: true) }
            guard case let .bool(b) = v else { throw bad("\"enable\" must be true or false") }
            return .watch(enable: b)
        case "START":
            guard let v = p["activity"] else { return .start(activity: nil) }
            guard case let .string(s) = v else { throw bad("\"activity\" must be a string: run or walk") }
            return .start(activity: s)
        case "PAUSE": return .pause
        case "RESUME": return .resume
        case "LAP": return .lap
        case "STOP": return .stop
        case "SESSIONS":
            let limit = try intParam("limit", required: false, range: 1...1000) ?? 20
            let before = try intParam("before", required: false, range: 1...Int64.max / 2)
            return .sessions(limit: Int(limit), before: before)
        case "SESSION":
            guard let i = try intParam("id", required: true, range: 1...Int64.max / 2) else { throw bad("?SESSION needs \"id\"") }
            return .session(id: i)
        case "DELETE":
            guard let i = try intParam("id", required: true, range: 1...Int64.max / 2) else { throw bad("?DELETE needs \"id\"") }
            return .delete(id: i)
        case "EXPORT":
            guard let i = try intParam("id", required: true, range: 1...Int64.max / 2) else { throw bad("?EXPORT needs \"id\"") }
            guard case let .string(f)? = p["format"] else {
                throw bad("?EXPORT needs \"format\": gpx, tcx, fit, geojson, csv or svg")
            }
            return .export(id: i, format: f)
        case "BADGES": return .badges
        case "CONFIG": return .config
        default:
            throw RequestError(.unknownCommand, "unknown request ?\(name);", id: id)
        }
    }
}
