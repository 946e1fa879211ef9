import Foundation
import MoonRunnerCore

/// A session's snapshot as the `session.snapshot` column keeps it: JSON with
/// infinities and NaN spelt as strings, which JSON itself cannot carry.
enum SnapshotJSON {
    static func encode(_ snapshot: SessionSnapshot) throws -> String {
        let e = JSONEncoder()
        e.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return String(decoding: try e.encode(snapshot), as: UTF8.self)
    }

    static func decode(_ json: String) -> SessionSnapshot? {
        try? decoder.decode(SessionSnapshot.self, from: Data(json.utf8))
    }

    private static let decoder: JSONDecoder = {
        let d = JSONDecoder()
        d.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return d
    }()
}
