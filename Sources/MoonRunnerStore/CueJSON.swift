import Foundation
import MoonRunnerCore

/// The cue of a `turn_ahead`/`turn_now` event as the `event.cue` column
/// keeps it: its JSON, NULL for every other event.
enum CueJSON {
    static func encode(_ cue: CueEvent?) -> String? {
        guard let cue, let data = try? JSONEncoder().encode(cue) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// A column that does not read (written by something else) is no cue, not a failure.
    static func decode(_ json: String?) -> CueEvent? {
        guard let json else { return nil }
        return try? JSONDecoder().decode(CueEvent.self, from: Data(json.utf8))
    }
}
