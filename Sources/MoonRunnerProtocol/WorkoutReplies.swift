import FoundationEssentials
import MoonRunnerCore

/// A workout of the library as replies show it: its name, sport, the
/// format it came in, how many steps it runs (repeats unrolled) and the
/// text form of it (`WorkoutText.format`), which the CLI and the phone show
/// and which reads back as the same workout.
public struct WorkoutInfo: Codable, Sendable, Equatable {
    public var id: Int64
    public var name: String
    /// The activity it is for; null when the file says none.
    @NullCoded public var sport: String?
    /// fit or text.
    public var format: String
    /// When it was added (daemon clock).
    public var createdAt: Double
    public var steps: Int
    public var text: String
    /// The steps as run, in the wearer's numbers (`WORKOUT` only, absent from `WORKOUTS`).
    public var plan: [PlannedStep]?

    public init(id: Int64, name: String, sport: String?, format: String, createdAt: Double, steps: Int, text: String,
                plan: [PlannedStep]? = nil) {
        self.id = id
        self.name = name
        self.sport = sport
        self.format = format
        self.createdAt = createdAt
        self.steps = steps
        self.text = text
        self.plan = plan
    }

    enum CodingKeys: String, CodingKey { case id, name, sport, format, createdAt = "created_at", steps, text, plan }
}

/// `{"class":"WORKOUTS","workouts":[...]}`, newest first.
public struct WorkoutsReply: Codable, Sendable, Equatable {
    public var cls = "WORKOUTS"
    public var workouts: [WorkoutInfo]
    public var id: JSONValue?

    public init(workouts: [WorkoutInfo], id: JSONValue? = nil) {
        self.workouts = workouts
        self.id = id
    }

    enum CodingKeys: String, CodingKey { case cls = "class", workouts, id }
}

/// `{"class":"WORKOUT","workout":{...}}`: one workout (also the reply to `?WORKOUT_ADD`).
public struct WorkoutReply: Codable, Sendable, Equatable {
    public var cls = "WORKOUT"
    public var workout: WorkoutInfo
    public var id: JSONValue?

    public init(workout: WorkoutInfo, id: JSONValue? = nil) {
        self.workout = workout
        self.id = id
    }

    enum CodingKeys: String, CodingKey { case cls = "class", workout, id }
}

/// `{"class":"WORKOUT_DELETED","workout":N}`.
public struct WorkoutDeletedReply: Codable, Sendable, Equatable {
    public var cls = "WORKOUT_DELETED"
    public var workout: Int64
    public var id: JSONValue?

    public init(workout: Int64, id: JSONValue? = nil) {
        self.workout = workout
        self.id = id
    }

    enum CodingKeys: String, CodingKey { case cls = "class", workout, id }
}

/// `STATUS.workout`: where the wearer is in the planned workout (null
/// without one, and after its end): the step as `EVENT.workout` gives it,
/// its time and distance so far, what is left of it, and the target's
/// measure now and where it lies in the band.
public struct WorkoutStatusReply: Codable, Sendable, Equatable {
    public var step: PlannedStep
    /// Steps as run in the whole workout (the N of "n of N").
    public var steps: Int
    public var elapsedS: Double
    public var distanceM: Double
    /// Seconds (a timed step) or metres (a distance step) left; null for one
    /// that ends at the lap command or a heart rate.
    @NullCoded public var remaining: Double?
    /// The smoothed measure (m/s, bpm, steps/min) and its place in the band
    /// (0 at the low end, 1 at the high); null without a target or a reading.
    @NullCoded public var value: Double?
    @NullCoded public var position: Double?
    /// target_low or target_high while an alert stands, else null.
    @NullCoded public var alert: String?

    public init(_ p: WorkoutProgress) {
        step = p.step
        steps = p.count
        elapsedS = p.elapsed
        distanceM = p.distance
        remaining = p.remaining
        value = p.value
        position = p.position
        alert = p.alert?.rawValue
    }

    enum CodingKeys: String, CodingKey {
        case step, steps, elapsedS = "elapsed_s", distanceM = "distance_m", remaining, value, position, alert
    }
}
