import CYAML

/// Reads a YAML document into the values Yams's `load(yaml:)` gives (String,
/// Int, Double, Bool, a null, `[String: Any]`, `[Any]`), over libyaml, which
/// Yams itself wraps. Yams needs the full Foundation, and with it ICU's 34 MB
/// of locale data in every static executable, and carries its own copy of
/// libyaml (a bundled library Debian's lintian refuses): the daemon
/// and the announcer read their config files with this instead, with the same
/// YAML 1.1 resolution of plain scalars as Yams's default resolver (tested
/// against Yams), so that existing files mean what they meant. Nulls are `YAMLNull`; a timestamp is left
/// as its text (no config key takes a date). Mapping keys are their text.
public enum YAMLReader {
    public struct ParseError: Error, CustomStringConvertible, Sendable {
        public var line: Int
        public var column: Int
        public var problem: String
        public var description: String { "\(line):\(column): \(problem)" }
    }

    /// The first document of `text`, or nil when it holds none (an empty file, comments only).
    public static func load(_ text: String) throws(ParseError) -> Any? {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            throw ParseError(line: 0, column: 0, problem: "libyaml could not start (out of memory)")
        }
        defer { yaml_parser_delete(&parser) }
        let bytes = Array(text.utf8)
        var document = yaml_document_t()
        let loaded = bytes.withUnsafeBufferPointer { buffer in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            return yaml_parser_load(&parser, &document)
        }
        guard loaded == 1 else {
            let mark = parser.problem_mark
            let problem = parser.problem.map { String(cString: $0) } ?? "not YAML"
            let context = parser.context.map { String(cString: $0) + ": " } ?? ""
            throw ParseError(line: mark.line + 1, column: mark.column + 1, problem: context + problem)
        }
        defer { yaml_document_delete(&document) }
        guard let root = yaml_document_get_root_node(&document) else { return nil }
        return value(of: root, in: &document, depth: 0)
    }

    /// Aliases are resolved by libyaml into shared nodes; the depth bound keeps
    /// a document that refers to itself from recursing without end.
    private static func value(of node: UnsafeMutablePointer<yaml_node_t>, in document: inout yaml_document_t,
                              depth: Int) -> Any {
        guard depth < 64 else { return YAMLNull() }
        switch node.pointee.type {
        case YAML_SCALAR_NODE:
            let scalar = node.pointee.data.scalar
            let text = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
            return scalar.style == YAML_PLAIN_SCALAR_STYLE ? YAMLScalar.resolve(text) : text
        case YAML_SEQUENCE_NODE:
            var list: [Any] = []
            var item = node.pointee.data.sequence.items.start
            while let i = item, i != node.pointee.data.sequence.items.top {
                if let child = yaml_document_get_node(&document, i.pointee) {
                    list.append(value(of: child, in: &document, depth: depth + 1))
                }
                item = i + 1
            }
            return list
        case YAML_MAPPING_NODE:
            var map: [String: Any] = [:]
            var pair = node.pointee.data.mapping.pairs.start
            while let p = pair, p != node.pointee.data.mapping.pairs.top {
                if let key = yaml_document_get_node(&document, p.pointee.key),
                   let child = yaml_document_get_node(&document, p.pointee.value) {
                    map[keyText(key)] = value(of: child, in: &document, depth: depth + 1)
                }
                pair = p + 1
            }
            return map
        default:
            return YAMLNull()
        }
    }

    private static func keyText(_ node: UnsafeMutablePointer<yaml_node_t>) -> String {
        guard node.pointee.type == YAML_SCALAR_NODE else { return "" }
        let scalar = node.pointee.data.scalar
        return String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
    }
}
