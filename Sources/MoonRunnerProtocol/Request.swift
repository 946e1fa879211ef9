import FoundationEssentials
import MoonRunnerCore

/// One request line of the control socket, gpsd style: `?NAME;` or
/// `?NAME={json};`. The optional `"id"` member is echoed in the reply so
/// that scripts can match replies to requests.
public struct Request: Sendable, Equatable {
    public var command: Command
    /// The request's `"id"`, echoed as-is (a JSON string or number).
    public var id: JSONValue?

    public init(command: Command, id: JSONValue? = nil) {
        self.command = command
        self.id = id
    }

    public enum Command: Sendable, Equatable {
        case version
        case status
        case watch(enable: Bool)
        /// Starts a session, following a stored course and/or heading for a point, running a stored workout.
        case start(activity: String?, course: Int64? = nil, destination: GeoPoint? = nil, workout: Int64? = nil)
        case pause
        case resume
        case lap
        case stop
        case sessions(limit: Int, before: Int64?)
        case session(id: Int64)
        case export(id: Int64, format: String)
        /// `?EXPORT` with `"privacy"`: the file less the points of its start and end inside these zones.
        case exportPrivate(id: Int64, format: String, zones: [PrivacyZone])
        case badges
        case delete(id: Int64)
        case config
        case courses
        case course(id: Int64)
        case courseDelete(id: Int64)
        /// Announces a course file: `chunks` `?COURSE_DATA` lines follow with `bytes` bytes in all.
        case courseAdd(UploadHeader)
        case courseData(seq: Int, data: String)
        /// Silences (or lets speak again) every announcer watching this daemon.
        case announce(quiet: Bool)
        case workouts
        case workout(id: Int64)
        case workoutDelete(id: Int64)
        /// Announces a workout (a FIT workout file or the text form), in pieces as a course file.
        case workoutAdd(UploadHeader)
        case workoutData(seq: Int, data: String)

        /// The request name as written on the wire.
        public var name: String { commandName.rawValue }

        /// Which request this is.
        public var commandName: CommandName {
            switch self {
            case .version: .version
            case .status: .status
            case .watch: .watch
            case .start: .start
            case .pause: .pause
            case .resume: .resume
            case .lap: .lap
            case .stop: .stop
            case .sessions: .sessions
            case .session: .session
            case .export, .exportPrivate: .export
            case .badges: .badges
            case .delete: .delete
            case .config: .config
            case .courses: .courses
            case .course: .course
            case .courseDelete: .courseDelete
            case .courseAdd: .courseAdd
            case .courseData: .courseData
            case .announce: .announce
            case .workouts: .workouts
            case .workout: .workout
            case .workoutDelete: .workoutDelete
            case .workoutAdd: .workoutAdd
            case .workoutData: .workoutData
            }
        }

        /// Commands that change state need a privileged peer.
        public var changesState: Bool {
            switch self {
            case .start, .pause, .resume, .lap, .stop, .delete, .courseAdd, .courseData, .courseDelete, .announce,
                 .workoutAdd, .workoutData, .workoutDelete: true
            default: false
            }
        }
    }

    /// The wire form of this request.
    public var line: String {
        var params: [String: JSONValue] = [:]
        switch command {
        case let .watch(enable): params["enable"] = .bool(enable)
        case let .announce(quiet): params["quiet"] = .bool(quiet)
        case let .start(activity, course, destination, workout):
            if let a = activity { params["activity"] = .string(a) }
            if let c = course { params["course"] = .number(Double(c)) }
            if let w = workout { params["workout"] = .number(Double(w)) }
            if let d = destination { params["to"] = .array([.number(d.latitude), .number(d.longitude)]) }
        case let .sessions(limit, before):
            params["limit"] = .number(Double(limit))
            if let b = before { params["before"] = .number(Double(b)) }
        case let .session(id), let .delete(id), let .course(id), let .courseDelete(id), let .workout(id),
             let .workoutDelete(id): params["id"] = .number(Double(id))
        case let .courseAdd(h), let .workoutAdd(h):
            if let n = h.name { params["name"] = .string(n) }
            if let f = h.format { params["format"] = .string(f) }
            params["encoding"] = .string(h.encoding)
            params["bytes"] = .number(Double(h.bytes))
            params["chunks"] = .number(Double(h.chunks))
        case let .courseData(seq, data), let .workoutData(seq, data):
            params["seq"] = .number(Double(seq))
            params["data"] = .string(data)
        case let .export(id, format):
            params["id"] = .number(Double(id))
            params["format"] = .string(format)
        case let .exportPrivate(id, format, zones):
            params["id"] = .number(Double(id))
            params["format"] = .string(format)
            params["privacy"] = .array(zones.map { .array([.number($0.latitude), .number($0.longitude), .number($0.radiusM)]) })
        default: break
        }
        if let id, params["id"] == nil { params["id"] = id }
        guard !params.isEmpty else { return "?\(command.name);" }
        return "?\(command.name)=\(JSONValue.object(params).serialized);"
    }
}

/// Why a request failed. `code` is stable for scripts; `message` is for
/// people and says what to do about it.
public struct RequestError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Codable, CaseIterable {
        /// The line is not `?NAME;` or `?NAME={...};`.
        case syntax
        /// `?NAME` is not a request of this protocol.
        case unknownCommand = "unknown_command"
        /// The text after `=` is not a JSON object.
        case badJSON = "bad_json"
        /// A parameter is missing, unknown, of the wrong type or out of range.
        case badParameter = "bad_parameter"
        /// The line was longer than `socket.max_line_bytes`; it was discarded.
        case tooLong = "too_long"
        /// A state change from a peer outside root, the daemon's user and the control group.
        case forbidden
        /// The request does not fit the session's state (e.g. `?PAUSE;` when idle).
        case invalidState = "invalid_state"
        /// No such session.
        case notFound = "not_found"
        /// The store failed (disk full, permissions); recording goes on in memory.
        case storeError = "store_error"
        /// `socket.max_clients` connections are open; this one is closed.
        case tooManyClients = "too_many_clients"
        /// More than `socket.max_requests_per_s` requests in a second; the request was not run.
        case rateLimited = "rate_limited"
        /// Nothing was sent or received for `socket.idle_timeout_s`; the connection is closed.
        case idleTimeout = "idle_timeout"
        /// The request exists but this daemon cannot serve it (e.g. a part not built in).
        case unavailable
        /// A bug: the daemon could not build its reply.
        case internalError = "internal"
        /// An upload larger than the daemon takes (`course.max_upload_kb`; 256 KiB for a workout); nothing was stored.
        case tooLarge = "too_large"
        /// The uploaded file is not a course (no points, one point, broken XML, a FIT without positions, ...).
        case badCourse = "bad_course"
        /// The uploaded workout cannot be run: not a workout file, a step that cannot be run, a repeat that points nowhere.
        case badWorkout = "bad_workout"
        /// The daemon is receiving as many uploads as it holds at once; try again.
        case busy
    }

    public var code: Code
    public var message: String
    public var id: JSONValue?

    public init(_ code: Code, _ message: String, id: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.id = id
    }

    public var description: String { message }
}
