import FoundationEssentials

/// Encodes replies as single JSON lines: keys sorted, so that the same
/// reply is always the same text, except `class`, which comes first as in
/// gpsd, so that a person (or `grep '^{"class":"STATUS"'`) sees it at once.
public enum ReplyEncoder {
    public static func line<T: Encodable>(_ reply: T) -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        e.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        guard let data = try? e.encode(reply) else {
            return #"{"class":"ERROR","code":"internal","message":"the reply could not be encoded; please report this bug"}"#
        }
        return String(decoding: classFirst([UInt8](data)), as: UTF8.self)
    }

    /// Moves the top-level `"class":"..."` member of a JSON object to the front.
    static func classFirst(_ json: [UInt8]) -> [UInt8] {
        guard let member = topLevelClassMember(json), member.lowerBound > 1 else { return json }
        var out: [UInt8] = [UInt8(ascii: "{")]
        out.reserveCapacity(json.count)
        out += json[member]
        out.append(UInt8(ascii: ","))
        // What was before the member (without the comma that preceded it), then what followed.
        out += json[1..<(member.lowerBound - 1)]
        out += json[member.upperBound...]
        return out
    }

    /// The byte range of `"class":"VALUE"` at depth 1, if the object has one.
    private static func topLevelClassMember(_ json: [UInt8]) -> Range<Int>? {
        let key = Array(#""class":""#.utf8)
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        var depth = 0
        var inString = false
        var escaped = false
        var keyExpected = false
        var i = 0
        while i < json.count {
            let b = json[i]
            if inString {
                if escaped { escaped = false } else if b == backslash { escaped = true } else if b == quote { inString = false }
                i += 1
                continue
            }
            switch b {
            case quote:
                if depth == 1, keyExpected, json[i...].starts(with: key) {
                    var end = i + key.count
                    while end < json.count, json[end] != quote { end += 1 }
                    return end < json.count ? i..<(end + 1) : nil
                }
                inString = true
                keyExpected = false
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                keyExpected = depth == 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
            case UInt8(ascii: ","):
                keyExpected = depth == 1
            default:
                break
            }
            i += 1
        }
        return nil
    }

    /// The `class` of a reply line, without decoding the rest.
    public static func replyClass(of line: String) -> String? {
        let prefix = #"{"class":""#
        if line.hasPrefix(prefix) {
            let rest = line.utf8.dropFirst(prefix.utf8.count)
            if let end = rest.firstIndex(of: UInt8(ascii: "\"")) { return String(line[rest.startIndex..<end]) }
        }
        struct Peek: Decodable { var cls: String; enum CodingKeys: String, CodingKey { case cls = "class" } }
        return (try? JSONDecoder().decode(Peek.self, from: Data(line.utf8)))?.cls
    }

    public static func decode<T: Decodable>(_ type: T.Type, from line: String) throws -> T {
        let d = JSONDecoder()
        d.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return try d.decode(T.self, from: Data(line.utf8))
    }
}
