import FoundationEssentials

/// Why a file is not well-formed XML, with the line it happened on.
struct XMLSyntaxError: Error, Sendable, Equatable {
    var line: Int
    var message: String
}

/// One step through an XML document.
enum XMLEvent: Equatable {
    /// A start tag; `name` without its namespace prefix (`gpxtpx:cad` → `cad`).
    case start(name: String, attributes: [String: String], line: Int)
    case end(name: String)
    /// Character data (entities decoded), only inside the root element.
    case text(String)
}

/// A small pull reader of XML: enough of XML 1.0 for the files route
/// planners write (elements, attributes, character and entity references,
/// CDATA, comments, processing instructions, a DOCTYPE), and strict about
/// well-formedness, so that a damaged file is refused with the line where it
/// breaks rather than read in part. No DTDs, no external entities, no
/// network: nothing in a file can make it read anything else.
///
/// MoonRunner uses this instead of Foundation's XMLParser, which on Linux
/// brings libxml2 into the daemon for three element names.
struct XMLEventReader {
    private let bytes: [UInt8]
    private var i = 0
    private(set) var line = 1
    private var open: [String] = []
    private var sawRoot = false
    private var pendingEnd: String?

    /// Deeper nesting is refused (no course file nests more than a few levels).
    static let maxDepth = 256

    init(_ data: Data) {
        var b = [UInt8](data)
        if b.starts(with: [0xEF, 0xBB, 0xBF]) { b.removeFirst(3) }
        bytes = b
    }

    /// The next event; nil at the end of a complete document.
    mutating func next() throws(XMLSyntaxError) -> XMLEvent? {
        if let name = pendingEnd {
            pendingEnd = nil
            return try closeElement(name)
        }
        while i < bytes.count {
            if bytes[i] != UInt8(ascii: "<") {
                let start = i
                while i < bytes.count, bytes[i] != UInt8(ascii: "<") {
                    if bytes[i] == 0x0A { line += 1 }
                    i += 1
                }
                if open.isEmpty {
                    guard bytes[start..<i].allSatisfy(Self.isSpace) else {
                        throw fail(sawRoot ? "text after the end of the document"
                                           : "this is not XML: expected '<' at the start of the document")
                    }
                    continue
                }
                return .text(try decode(start..<i))
            }
            if matches("<!--") {
                try skip(past: "-->", what: "comment")
            } else if matches("<![CDATA[") {
                guard !open.isEmpty else { throw fail("CDATA outside the root element") }
                i += 9
                let start = i
                try skip(past: "]]>", what: "CDATA section")
                return .text(String(decoding: bytes[start..<(i - 3)], as: UTF8.self))
            } else if matches("<?") {
                try skip(past: "?>", what: "processing instruction")
            } else if matches("<!DOCTYPE") {
                guard !sawRoot else { throw fail("a DOCTYPE after the root element") }
                try skipDoctype()
            } else if matches("</") {
                i += 2
                let name = try readName()
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ">") else { throw fail("expected '>' to end </\(name)") }
                i += 1
                return try closeElement(name)
            } else {
                return try openElement()
            }
        }
        if let top = open.last { throw fail("the file ends inside <\(top)> (truncated or damaged)") }
        if !sawRoot { throw fail(bytes.isEmpty ? "the file is empty" : "the document has no root element") }
        return nil
    }

    private mutating func openElement() throws(XMLSyntaxError) -> XMLEvent {
        let tagLine = line
        i += 1
        guard !sawRoot || !open.isEmpty else { throw fail("a second root element") }
        let name = try readName()
        var attributes: [String: String] = [:]
        while true {
            let hadSpace = skipSpace()
            guard i < bytes.count else { throw fail("the file ends inside the tag <\(name)") }
            if bytes[i] == UInt8(ascii: ">") {
                i += 1
                break
            }
            if matches("/>") {
                i += 2
                pendingEnd = name
                break
            }
            guard hadSpace else { throw fail("expected a space, '>' or '/>' in the tag <\(name)") }
            let key = try readName()
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "=") else { throw fail("attribute \(key) of <\(name)> has no value") }
            i += 1
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'") else {
                throw fail("the value of attribute \(key) of <\(name)> is not quoted")
            }
            let quote = bytes[i]
            i += 1
            let start = i
            while i < bytes.count, bytes[i] != quote {
                if bytes[i] == UInt8(ascii: "<") { throw fail("'<' in the value of attribute \(key) of <\(name)>") }
                if bytes[i] == 0x0A { line += 1 }
                i += 1
            }
            guard i < bytes.count else { throw fail("the value of attribute \(key) of <\(name)> never ends") }
            let value = try decode(start..<i)
            i += 1
            guard attributes.updateValue(value, forKey: Self.localName(key)) == nil else {
                throw fail("attribute \(key) appears twice in <\(name)>")
            }
        }
        guard open.count < Self.maxDepth else { throw fail("elements nest deeper than \(Self.maxDepth) levels") }
        open.append(name)
        sawRoot = true
        return .start(name: Self.localName(name), attributes: attributes, line: tagLine)
    }

    private mutating func closeElement(_ name: String) throws(XMLSyntaxError) -> XMLEvent {
        guard let top = open.last else { throw fail("</\(name)> closes nothing") }
        guard top == name else { throw fail("</\(name)> where </\(top)> was expected") }
        open.removeLast()
        return .end(name: Self.localName(name))
    }

    // MARK: Lexing

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    private static func isNameByte(_ b: UInt8, first: Bool) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"),
             UInt8(ascii: ":"), 0x80...0xFF:
            return true
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."):
            return !first
        default:
            return false
        }
    }

    static func localName(_ name: String) -> String {
        guard let colon = name.lastIndex(of: ":") else { return name }
        return String(name[name.index(after: colon)...])
    }

    private func matches(_ s: StaticString) -> Bool {
        let n = s.utf8CodeUnitCount
        guard i + n <= bytes.count else { return false }
        return s.withUTF8Buffer { p in
            for k in 0..<n where bytes[i + k] != p[k] { return false }
            return true
        }
    }

    @discardableResult
    private mutating func skipSpace() -> Bool {
        let start = i
        while i < bytes.count, Self.isSpace(bytes[i]) {
            if bytes[i] == 0x0A { line += 1 }
            i += 1
        }
        return i > start
    }

    private mutating func readName() throws(XMLSyntaxError) -> String {
        let start = i
        while i < bytes.count, Self.isNameByte(bytes[i], first: i == start) { i += 1 }
        guard i > start else { throw fail("expected an element or attribute name") }
        guard i - start <= 256 else { throw fail("a name longer than 256 bytes") }
        return String(decoding: bytes[start..<i], as: UTF8.self)
    }

    private mutating func skip(past end: StaticString, what: String) throws(XMLSyntaxError) {
        let startLine = line
        while i < bytes.count {
            if matches(end) {
                i += end.utf8CodeUnitCount
                return
            }
            if bytes[i] == 0x0A { line += 1 }
            i += 1
        }
        line = startLine
        throw fail("a \(what) that never ends")
    }

    /// Skips `<!DOCTYPE ...>` with an optional internal subset in brackets.
    private mutating func skipDoctype() throws(XMLSyntaxError) {
        var depth = 0
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ">") where depth <= 0:
                i += 1
                return
            case 0x0A: line += 1
            default: break
            }
            i += 1
        }
        throw fail("a DOCTYPE that never ends")
    }

    /// Text with its character and entity references replaced.
    private func decode(_ range: Range<Int>) throws(XMLSyntaxError) -> String {
        guard bytes[range].contains(UInt8(ascii: "&")) else { return String(decoding: bytes[range], as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(range.count)
        var k = range.lowerBound
        while k < range.upperBound {
            let b = bytes[k]
            guard b == UInt8(ascii: "&") else {
                out.append(b)
                k += 1
                continue
            }
            guard let semi = bytes[k..<min(range.upperBound, k + 12)].firstIndex(of: UInt8(ascii: ";")) else {
                throw fail("'&' that starts no entity (write &amp;)")
            }
            let entity = String(decoding: bytes[(k + 1)..<semi], as: UTF8.self)
            switch entity {
            case "lt": out.append(UInt8(ascii: "<"))
            case "gt": out.append(UInt8(ascii: ">"))
            case "amp": out.append(UInt8(ascii: "&"))
            case "quot": out.append(UInt8(ascii: "\""))
            case "apos": out.append(UInt8(ascii: "'"))
            default:
                var scalar: UInt32?
                if entity.hasPrefix("#x") { scalar = UInt32(entity.dropFirst(2), radix: 16) }
                else if entity.hasPrefix("#") { scalar = UInt32(entity.dropFirst(1)) }
                guard let v = scalar, let u = Unicode.Scalar(v), v != 0 else {
                    throw fail("unknown entity &\(entity.prefix(12));")
                }
                out += Array(String(Character(u)).utf8)
            }
            k = semi + 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private func fail(_ message: String) -> XMLSyntaxError {
        XMLSyntaxError(line: line, message: message)
    }
}
