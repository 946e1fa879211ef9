import Glibc

/// Settings of navigation during a session.
public struct NavigationConfig: Sendable, Equatable {
    public var matcher = CourseMatcherConfig()
    /// A `course_to_go` event when the distance to go first drops to each of
    /// these, metres.
    public var toGoAlerts: [Double] = [1000, 500]
    /// `arrived` when this close to the destination, metres.
    public var arriveRadius = 30.0
    /// When the course's cues are said.
    public var cues = CueGuideConfig()
    /// The session's start ("home") follows the position until the session
    /// has counted this many metres: the filter's first points can still be
    /// converging, and the wearer often waits a moment before running.
    public var homeSettleDistance = 10.0

    public init() {}
}

/// A course being followed: the store's id (nil offline), its geometry and
/// its cues in course order.
public struct FollowedCourse: Sendable {
    public var id: Int64?
    public var name: String
    public var geometry: CourseGeometry
    public var cues: [CourseCue]

    public init(id: Int64?, name: String, geometry: CourseGeometry, cues: [CourseCue] = []) {
        self.id = id
        self.name = name
        self.geometry = geometry
        self.cues = cues
    }

    /// A course read from a file, ready to follow: its geometry, its own
    /// points placed on it and, when they name no turn, the turns of its shape.
    public init(id: Int64?, course: Course, matcher: CourseMatcherConfig = CourseMatcherConfig()) throws(CourseError) {
        let geometry = try CourseGeometry(course.points)
        self.init(id: id, name: course.name, geometry: geometry,
                  cues: CourseCues.make(marks: course.marks, geometry: geometry,
                                        offCourseDistance: matcher.offCourseDistance))
    }
}

/// A navigation event as the navigator raises it: its kind, when it
/// happened (back-dated where the evidence began), its detail and, for
/// `turn_ahead` and `turn_now`, the cue.
public struct NavigationEvent: Sendable, Equatable {
    public var kind: SessionEventKind
    public var time: Double
    public var detail: String?
    public var cue: CueEvent?

    public init(kind: SessionEventKind, time: Double, detail: String?, cue: CueEvent? = nil) {
        self.kind = kind
        self.time = time
        self.detail = detail
        self.cue = cue
    }
}

/// Distance and initial bearing of a straight line, metres and degrees.
public struct Heading: Sendable, Equatable {
    public var distance: Double
    public var bearing: Double

    public init(from a: GeoPoint, to b: GeoPoint) {
        distance = Geodesy.distance(lat1: a.latitude, lon1: a.longitude, lat2: b.latitude, lon2: b.longitude)
        bearing = Geodesy.bearing(lat1: a.latitude, lon1: a.longitude, lat2: b.latitude, lon2: b.longitude)
    }
}

/// Where the wearer stands against the course, for `STATUS`.
public struct CourseStatus: Sendable, Equatable {
    public var id: Int64?
    public var name: String
    public var length: Double
    public var progress: Double?
    public var toGo: Double?
    /// Seconds to the finish at the session's average moving speed.
    public var eta: Double?
    public var distanceToCourse: Double?
    public var onCourse: Bool
    /// Bearing to the nearest point of the course, degrees; nil when on course.
    public var bearingToCourse: Double?
    public var finished: Bool
    /// The next cue ahead and the metres to it; nil off course, while the
    /// progress is held, past the last cue, or for a course without cues.
    public var nextCue: (cue: CourseCue, distance: Double)?

    public static func == (a: CourseStatus, b: CourseStatus) -> Bool {
        a.id == b.id && a.name == b.name && a.length == b.length && a.progress == b.progress && a.toGo == b.toGo
            && a.eta == b.eta && a.distanceToCourse == b.distanceToCourse && a.onCourse == b.onCourse
            && a.bearingToCourse == b.bearingToCourse && a.finished == b.finished
            && a.nextCue?.cue == b.nextCue?.cue && a.nextCue?.distance == b.nextCue?.distance
    }

    public init(id: Int64?, name: String, length: Double, progress: Double?, toGo: Double?, eta: Double?,
                distanceToCourse: Double?, onCourse: Bool, bearingToCourse: Double?, finished: Bool,
                nextCue: (cue: CourseCue, distance: Double)? = nil) {
        self.id = id
        self.name = name
        self.length = length
        self.progress = progress
        self.toGo = toGo
        self.eta = eta
        self.distanceToCourse = distanceToCourse
        self.onCourse = onCourse
        self.bearingToCourse = bearingToCourse
        self.finished = finished
        self.nextCue = nextCue
    }
}

/// What the navigator keeps in the session's snapshot, so that a restart
/// carries on following (the course's points are in the store).
public struct NavigationSnapshot: Sendable, Equatable, Codable {
    public var courseID: Int64?
    public var courseName: String?
    public var courseLength: Double?
    public var destination: GeoPoint?
    public var home: GeoPoint?
    public var phase: CourseMatcher.Phase?
    public var progress: Double?
    public var progressTime: Double?
    public var finished: Bool
    public var arrived: Bool
    /// Distance to go at the last match on course (for the to-go alerts).
    public var lastToGo: Double?
    /// The first cue not yet said or passed (absent before cues).
    public var nextCue: Int?

    public init(courseID: Int64? = nil, courseName: String? = nil, courseLength: Double? = nil,
                destination: GeoPoint? = nil, home: GeoPoint? = nil, phase: CourseMatcher.Phase? = nil,
                progress: Double? = nil, progressTime: Double? = nil, finished: Bool = false, arrived: Bool = false,
                lastToGo: Double? = nil, nextCue: Int? = nil) {
        self.courseID = courseID
        self.courseName = courseName
        self.courseLength = courseLength
        self.destination = destination
        self.home = home
        self.phase = phase
        self.progress = progress
        self.progressTime = progressTime
        self.finished = finished
        self.arrived = arrived
        self.lastToGo = lastToGo
        self.nextCue = nextCue
    }

    private enum CodingKeys: String, CodingKey {
        case courseID = "course_id", courseName = "course_name", courseLength = "course_length_m", destination, home,
             phase, progress = "progress_m", progressTime = "progress_time", finished, arrived, lastToGo = "last_to_go_m",
             nextCue = "next_cue"
    }
}

/// Course following, a destination and the way home during one session:
/// fed every accepted position, it keeps the course match, says how far and
/// where home and the destination are, and raises the navigation events
/// (`off_course`, `on_course`, `course_to_go`, `course_finished`, `arrived`,
/// and the cues' `turn_ahead` and `turn_now` through its `CueGuide`).
public struct Navigator: Sendable {
    public let config: NavigationConfig
    public let course: FollowedCourse?
    public let destination: GeoPoint?
    public private(set) var matcher: CourseMatcher?
    /// When to say the course's cues; nil without a course.
    public private(set) var guide: CueGuide?
    /// The session's start; nil before the first position.
    public private(set) var home: GeoPoint?
    /// The latest position and its course match.
    public private(set) var position: GeoPoint?
    public private(set) var lastMatch: CourseMatch?
    public private(set) var finished = false
    public private(set) var arrived = false
    private var lastToGo: Double?
    private var homeSettled = false

    public init(course: FollowedCourse?, destination: GeoPoint?, config: NavigationConfig = NavigationConfig()) {
        self.config = config
        self.course = course
        self.destination = destination
        matcher = course.map { CourseMatcher(geometry: $0.geometry, config: config.matcher) }
        guide = course.map { CueGuide(cues: $0.cues, config: config.cues) }
    }

    /// Carries on from a snapshot; `course` is the snapshot's course as the
    /// store still has it (nil when deleted meanwhile: following ends).
    public init(restoring s: NavigationSnapshot, course: FollowedCourse?, config: NavigationConfig = NavigationConfig()) {
        self.config = config
        self.course = course
        destination = s.destination
        home = s.home
        homeSettled = s.home != nil
        finished = s.finished
        arrived = s.arrived
        lastToGo = s.lastToGo
        matcher = course.map {
            CourseMatcher(geometry: $0.geometry, config: config.matcher, phase: s.phase ?? .joining,
                          progress: s.progress ?? 0, progressTime: s.progressTime ?? -.infinity)
        }
        guide = course.map { CueGuide(cues: $0.cues, config: config.cues, next: s.nextCue ?? 0) }
    }

    public var snapshot: NavigationSnapshot {
        NavigationSnapshot(courseID: course?.id, courseName: course?.name, courseLength: course?.geometry.length,
                           destination: destination, home: home, phase: matcher?.phase,
                           progress: matcher.map(\.progress), progressTime: matcher?.progressTime.isFinite == true
                               ? matcher?.progressTime : nil,
                           finished: finished, arrived: arrived, lastToGo: lastToGo, nextCue: guide?.next)
    }

    /// One accepted position at engine time `t`: `sigma` is its 1σ error
    /// (metres), `speed` and `heading` the wearer's (m/s, degrees),
    /// `distance` the session's so far.
    /// Events go to `emit`, detected at `t`.
    public mutating func update(latitude: Double, longitude: Double, sigma: Double, speed: Double, heading: Double,
                                distance: Double, at t: Double, emit: (NavigationEvent) -> Void) {
        let here = GeoPoint(latitude: latitude, longitude: longitude)
        guard here.isValid else { return }
        position = here
        if !homeSettled {
            if home == nil || distance < config.homeSettleDistance { home = here }
            homeSettled = distance >= config.homeSettleDistance
        }
        if let target = destination, !arrived, Heading(from: here, to: target).distance <= config.arriveRadius {
            arrived = true
            emit(NavigationEvent(kind: .arrived, time: t, detail: "\(target.latitude.fixed(6)),\(target.longitude.fixed(6))"))
        }
        // Mutated in place (optional chaining), so its buffers are not copied.
        guard let (match, transition) = matcher?.update(latitude: latitude, longitude: longitude, sigma: sigma,
                                                        speed: speed, heading: heading, at: t),
              let m = matcher else { return }
        lastMatch = match
        // Past the finish the course has nothing more to say (running on to
        // the car park is not leaving the course).
        guard !finished else { return }
        switch transition {
        case let .offCourse(since)?:
            let bearing = Heading(from: here, to: match.nearest).bearing
            emit(NavigationEvent(kind: .offCourse, time: since, detail: String(Int(bearing.rounded()) % 360)))
        case let .onCourse(since)?:
            emit(NavigationEvent(kind: .onCourse, time: since, detail: match.progress.map { String(Int($0.rounded())) }))
        case nil:
            break
        }
        guard match.onCourse, let progress = match.progress else { return }
        let toGo = m.toGo(progress)
        if let before = lastToGo {
            // The nearest alert distance crossed (a rejoin may cross several: say the last).
            if let crossed = config.toGoAlerts.filter({ $0 < before && $0 >= toGo }).min() {
                emit(NavigationEvent(kind: .courseToGo, time: t, detail: String(Int(crossed.rounded()))))
            }
        }
        lastToGo = toGo
        guide?.update(progress: progress, speed: speed, at: t) { a in
            emit(NavigationEvent(kind: a.phase == .ahead ? .turnAhead : .turnNow, time: t, detail: a.cue.kind.rawValue,
                                 cue: CueEvent(a)))
        }
        if !finished && toGo <= config.matcher.finishDistance {
            finished = true
            emit(NavigationEvent(kind: .courseFinished, time: t, detail: course?.name))
        }
    }

    /// The course's figures for `STATUS`; `averageSpeed` (m/s, moving) gives the ETA.
    public func courseStatus(averageSpeed: Double) -> CourseStatus? {
        guard let course, let m = matcher else { return nil }
        let match = lastMatch
        let progress = match?.onCourse == true ? match?.progress : nil
        let toGo = progress.map { m.toGo($0) }
        let eta = toGo.flatMap { averageSpeed > 0.2 ? $0 / averageSpeed : nil }
        var bearing: Double?
        if let match, !match.onCourse, let here = position { bearing = Heading(from: here, to: match.nearest).bearing }
        return CourseStatus(id: course.id, name: course.name, length: m.geometry.length, progress: progress, toGo: toGo,
                            eta: eta, distanceToCourse: match?.distance, onCourse: match?.onCourse ?? false,
                            bearingToCourse: bearing, finished: finished,
                            nextCue: finished ? nil : progress.flatMap { guide?.upcoming(progress: $0) })
    }

    /// Straight line from the position to the session's start.
    public var toHome: Heading? {
        guard let here = position, let home else { return nil }
        return Heading(from: here, to: home)
    }

    /// Straight line from the position to the destination.
    public var toDestination: Heading? {
        guard let here = position, let destination else { return nil }
        return Heading(from: here, to: destination)
    }
}
