import FoundationEssentials
import MoonRunnerCore

/// Why a file is not a workout that can be run: what is wrong and where
/// (the step, a FIT file's byte, a line and column of the text form).
public struct WorkoutFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The forms a workout comes in: a FIT workout file, or the text form
/// (`WorkoutText`) in a file or a request.
public enum WorkoutFileFormat: String, Sendable, CaseIterable {
    case fit, text

    /// FIT when the bytes start with a FIT header, else text.
    public static func sniff(_ data: Data) -> WorkoutFileFormat {
        CourseFileFormat.sniff(data) == .fit ? .fit : .text
    }
}

/// Reads a workout to run, checked: a FIT workout file or the text form.
/// Anything else, and any workout that cannot be run, is refused with its
/// reason (`WorkoutFileError`), so that nothing is stored.
public enum WorkoutFile {
    /// Files larger than this are not workouts (a 250-step FIT file is under 20 kB).
    public static let maxBytes = 1 << 20

    /// Reads `data` as `format` (sniffed when nil). The workout gets `name`
    /// when given, else the file's own, else "workout"; `sport` stands for
    /// a text that names none.
    public static func read(_ data: Data, format: WorkoutFileFormat? = nil, name: String? = nil,
                            sport: Activity? = nil) throws(WorkoutFileError) -> Workout {
        guard !data.isEmpty else { throw WorkoutFileError("the file is empty") }
        guard data.count <= maxBytes else { throw WorkoutFileError("the file is \(data.count) bytes; a workout is under \(maxBytes)") }
        var workout: Workout
        switch format ?? WorkoutFileFormat.sniff(data) {
        case .fit:
            workout = try FITWorkoutReader.read([UInt8](data))
            do {
                try workout.validate()
            } catch {
                throw WorkoutFileError("FIT: \(error)")
            }
        case .text:
            guard let text = String(validating: data, as: UTF8.self) else {
                throw WorkoutFileError("neither a FIT workout nor text (the file is not UTF-8)")
            }
            do {
                workout = try WorkoutText.parse(text, sport: sport)
            } catch {
                throw WorkoutFileError("\(error)")
            }
            workout.name = ""
        }
        let given = name?.trimmingSpacesAndNewlines() ?? ""
        let own = workout.name.trimmingSpacesAndNewlines()
        workout.name = String((given.isEmpty ? (own.isEmpty ? "workout" : own) : given).prefix(200))
        return workout
    }
}
