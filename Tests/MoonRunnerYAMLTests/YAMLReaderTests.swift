import Foundation
import MoonRunnerYAML
import Testing
import Yams

/// The daemon and the announcer read their files with libyaml directly (no
/// Foundation, so no ICU in the announcer, and no second libyaml bundled in
/// the daemon); they read them with Yams before. An existing file
/// must mean what it meant, so each document here is read both ways.
@Suite("YAML over libyaml reads as Yams does")
struct YAMLReaderTests {
    /// Yams's values in the reader's terms (`NSNull` is `YAMLNull`, maps have String keys).
    private func normalised(_ v: Any?) -> String {
        switch v {
        case nil: return "nil"
        case is NSNull, is YAMLNull: return "null"
        case let b as Bool: return "bool(\(b))"
        case let i as Int: return "int(\(i))"
        case let d as Double: return d.isNaN ? "double(nan)" : "double(\(d))"
        case let s as String: return "str(\(s))"
        case let list as [Any]: return "[" + list.map { normalised($0) }.joined(separator: ", ") + "]"
        case let map as [AnyHashable: Any]:
            return "{" + map.map { ("\($0.key)", normalised($0.value)) }.sorted { $0.0 < $1.0 }
                .map { "\($0.0): \($0.1)" }.joined(separator: ", ") + "}"
        case let map as [String: Any]:
            return "{" + map.sorted { $0.key < $1.key }.map { "\($0.key): \(normalised($0.value))" }.joined(separator: ", ") + "}"
        default: return "other(\(String(describing: v)))"
        }
    }

    static let scalars = [
        "true", "True", "yes", "No", "on", "OFF", "y", "n", "0", "170", "-3", "+12", "1_000", "0x1F", "0b101", "0o17",
        "0660", "08", "1:30", "-1:30", "5", "5.0", "3.5", "0.5", ".5", "1e3", "1.5e-3", "-2.", ".inf", "-.inf", ".NaN",
        "~", "null", "NULL", "", "default", "plughw:1,0", "en", "cmn-latn-pinyin", "\"170\"", "'yes'", "\"\"", "a b",
        "99999999999999999999", "12:60", "1__0",
    ]

    @Test("every plain or quoted scalar resolves to the value and type Yams gives", arguments: scalars)
    func scalar(text: String) throws {
        let document = "key: \(text)\n"
        #expect(normalised(try YAMLReader.load(document)) == normalised(try Yams.load(yaml: document)))
    }

    @Test("nesting, lists, anchors and an empty or comment-only file read as Yams reads them")
    func documents() throws {
        let documents = [
            "", "# only a comment\n", "language: cmn\nannounce:\n  splits: false\n  every_minutes: 10\ncues:\n  auto_pause: no\n",
            "alerts: [1000, 500]\nempty: []\nnested:\n  - a\n  - {b: 1}\n", "base: &b 3\nother: *b\n", "- 1\n- two\n",
            "voice:\n", "announce:\n",
        ]
        for d in documents {
            #expect(normalised(try YAMLReader.load(d)) == normalised(try Yams.load(yaml: d)), "\(d.debugDescription)")
        }
    }

    @Test("broken YAML is an error naming the line and column")
    func broken() {
        do {
            _ = try YAMLReader.load("announce:\n  splits: [true\n")
            Issue.record("accepted broken YAML")
        } catch {
            #expect(error.line >= 2 && error.description.contains(":"), "\(error)")
        }
    }
}
