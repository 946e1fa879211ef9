import Foundation
import MoonRunnerCore

/// The step of a workout event as the `event.workout` column keeps it: its
/// JSON, NULL for every other event.
enum WorkoutEventJSON {
    static func encode(_ info: WorkoutEventInfo?) -> String? {
        guard let info, let data = try? JSONEncoder().encode(info) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// A column that does not read (written by something else) is no step, not a failure.
    static func decode(_ json: String?) -> WorkoutEventInfo? {
        guard let json else { return nil }
        return try? JSONDecoder().decode(WorkoutEventInfo.self, from: Data(json.utf8))
    }
}
