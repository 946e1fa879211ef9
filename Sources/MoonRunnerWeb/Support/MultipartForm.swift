import MoonRunnerCore

/// A `multipart/form-data` body (RFC 7578 over RFC 2046's syntax) split into
/// its parts. The web app receives one form, the course upload, whose body it
/// has already bounded by `course.max_upload_kb`, so the body is parsed whole:
/// MultipartKit's streaming parser linked all of swift-collections (1.2 MB of
/// the package) for this one form.
public struct MultipartForm: Equatable, Sendable {
    public struct Part: Equatable, Sendable {
        /// The `name` of its `Content-Disposition: form-data`.
        public var name: String
        /// The `filename`, for a file.
        public var fileName: String?
        public var bytes: [UInt8]
    }

    public var parts: [Part]

    /// A body that does not follow the syntax: no first boundary, a part's
    /// headers without their blank line, or no closing `--boundary--`.
    public struct Broken: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Splits `body` at `--boundary` delimiters. The preamble before the first
    /// and the epilogue after the closing one are ignored, as the RFC says.
    public static func parse(_ body: [UInt8], boundary: String) throws(Broken) -> MultipartForm {
        let dash = Array("--\(boundary)".utf8), crlf: [UInt8] = [13, 10]
        // The first delimiter may open the body; every other one follows a CRLF.
        guard var at = body.starts(with: dash) ? 0 : find(crlf + dash, in: body, from: 0).map({ $0 + 2 }) else {
            throw Broken(description: "no boundary")
        }
        var parts: [Part] = []
        while true {
            var i = at + dash.count
            if body[i...].starts(with: [45, 45]) { return MultipartForm(parts: parts) }  // "--": the close
            // Transport padding (spaces, tabs) may follow a delimiter before its CRLF.
            while i < body.count, body[i] == 32 || body[i] == 9 { i += 1 }
            guard body[i...].starts(with: crlf) else { throw Broken(description: "a boundary without its line end") }
            i += 2
            guard let headersEnd = find(crlf + crlf, in: body, from: i - 2) else {
                throw Broken(description: "a part's headers without the blank line after them")
            }
            let headers = headersEnd > i ? String(decoding: body[i..<headersEnd], as: UTF8.self) : ""
            let start = headersEnd + 4
            guard let next = find(crlf + dash, in: body, from: start - 2) else {
                throw Broken(description: "no closing boundary")
            }
            let (name, fileName) = disposition(headers)
            parts.append(Part(name: name, fileName: fileName, bytes: next >= start ? Array(body[start..<next]) : []))
            at = next + 2
        }
    }

    /// The first part named `name`.
    public subscript(name: String) -> Part? { parts.first { $0.name == name } }

    /// `name` and `filename` of the `Content-Disposition` header among `headers`.
    static func disposition(_ headers: String) -> (String, String?) {
        for line in headers.split(separator: "\r\n") {
            let field = line.split(separator: ":", maxSplits: 1)
            guard field.count == 2, field[0].lowercased() == "content-disposition" else { continue }
            let value = String(field[1])
            return (HeaderParameter.value("name", in: value) ?? "", HeaderParameter.value("filename", in: value))
        }
        return ("", nil)
    }

    /// Where `needle` first occurs in `hay` at or after `from`.
    static func find(_ needle: [UInt8], in hay: [UInt8], from: Int) -> Int? {
        guard !needle.isEmpty, from >= 0, hay.count - needle.count >= from else { return nil }
        var i = from
        while i <= hay.count - needle.count {
            guard let first = hay[i...(hay.count - needle.count)].firstIndex(of: needle[0]) else { return nil }
            if hay[first..<(first + needle.count)].elementsEqual(needle) { return first }
            i = first + 1
        }
        return nil
    }
}

/// A parameter of a header value (`form-data; name="file"; filename="a.gpx"`,
/// `multipart/form-data; boundary=XyZ`), its quotes removed.
public enum HeaderParameter {
    public static func value(_ key: String, in header: String) -> String? {
        for item in header.split(separator: ";").dropFirst() {
            let kv = item.split(separator: "=", maxSplits: 1)
            guard kv.count == 2, kv[0].trimmingSpacesAndTabs().lowercased() == key else { continue }
            var v = kv[1].trimmingSpacesAndTabs()
            if v.hasPrefix("\""), v.hasSuffix("\""), v.count >= 2 { v = String(v.dropFirst().dropLast()) }
            return v
        }
        return nil
    }
}
