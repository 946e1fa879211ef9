/// The requests of the protocol, in the order the error for an unknown one
/// lists them. The raw value is the name on the wire; the parser, the
/// command's `name` and that list all come from here, so a request is named
/// in one place.
public enum CommandName: String, Sendable, CaseIterable {
    case version = "VERSION"
    case status = "STATUS"
    case watch = "WATCH"
    case start = "START"
    case pause = "PAUSE"
    case resume = "RESUME"
    case lap = "LAP"
    case stop = "STOP"
    case sessions = "SESSIONS"
    case session = "SESSION"
    case export = "EXPORT"
    case badges = "BADGES"
    case delete = "DELETE"
    case config = "CONFIG"
    case courses = "COURSES"
    case course = "COURSE"
    case courseDelete = "COURSE_DELETE"
    case courseAdd = "COURSE_ADD"
    case courseData = "COURSE_DATA"
    case announce = "ANNOUNCE"
    case workouts = "WORKOUTS"
    case workout = "WORKOUT"
    case workoutDelete = "WORKOUT_DELETE"
    case workoutAdd = "WORKOUT_ADD"
    case workoutData = "WORKOUT_DATA"

    /// The parameters the request takes besides `"id"` (which any request
    /// may carry), in the order a refusal names them.
    public var parameters: [String] {
        switch self {
        case .watch: ["enable"]
        case .start: ["activity", "course", "to", "workout"]
        case .sessions: ["limit", "before"]
        case .export: ["format", "privacy"]
        case .courseAdd, .workoutAdd: ["name", "format", "encoding", "bytes", "chunks"]
        case .courseData, .workoutData: ["seq", "data"]
        case .announce: ["quiet"]
        case .version, .status, .pause, .resume, .lap, .stop, .session, .badges, .delete, .config, .courses,
             .course, .courseDelete, .workouts, .workout, .workoutDelete: []
        }
    }
}
