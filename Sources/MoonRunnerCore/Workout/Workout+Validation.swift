/// Why a workout cannot be run: the step (1-based, as a person counts the
/// file's steps; nil for the workout as a whole) and what is wrong with it.
public struct WorkoutError: Error, Sendable, Equatable, CustomStringConvertible {
    public var step: Int?
    public var reason: String

    public init(step: Int? = nil, _ reason: String) {
        self.step = step
        self.reason = reason
    }

    public var description: String { step.map { "step \($0): \(reason)" } ?? reason }
}

extension Workout {
    /// Entries in a workout's list; Garmin's watches take 50 (100 on newer
    /// ones), so a longer list is a mistake, not a plan.
    public static let maxItems = 250
    /// Repeats inside repeats: "3 × (4 × (200 m fast, 200 m jog), 3 min
    /// rest)" is two; Garmin Connect's editor nests no deeper than that, and
    /// a third level is allowed for files from elsewhere.
    public static let maxNesting = 3
    /// Rounds of one repeat (FIT's field is a uint32: a bad file says 4 billion).
    public static let maxRounds = 100

    /// Refuses a workout that cannot be run, with the first reason found.
    public func validate() throws(WorkoutError) {
        guard items.contains(where: { $0.step != nil }) else { throw WorkoutError("the workout has no steps") }
        guard items.count <= Self.maxItems else {
            throw WorkoutError("the workout has \(items.count) steps; at most \(Self.maxItems) are read")
        }
        for (k, item) in items.enumerated() {
            switch item {
            case let .step(s):
                try WorkoutError.check(s, at: k + 1)
            case let .repeats(from, times):
                try checkRepeat(at: k, from: from, times: times)
            }
        }
        _ = try nesting()
    }

    private func checkRepeat(at k: Int, from: Int, times: Int) throws(WorkoutError) {
        let here = k + 1
        guard from >= 0 && from < items.count else {
            throw WorkoutError(step: here, "the repeat points nowhere (to step \(from + 1) of \(items.count))")
        }
        guard from != k else { throw WorkoutError(step: here, "the repeat points at itself") }
        guard from < k else { throw WorkoutError(step: here, "the repeat points forward, to step \(from + 1)") }
        guard times >= 1 && times <= Self.maxRounds else {
            throw WorkoutError(step: here, "a repeat of \(times) rounds (1 to \(Self.maxRounds) are run)")
        }
        guard items[from..<k].contains(where: { $0.step != nil }) else {
            throw WorkoutError(step: here, "the repeat's block (steps \(from + 1)–\(k)) has no step to run")
        }
    }

    /// The innermost repeat around each entry (nil outside every repeat) and
    /// the deepest nesting; refuses blocks that overlap without one holding
    /// the other, and nesting deeper than `maxNesting`.
    func nesting() throws(WorkoutError) -> (innermost: [Int?], depth: Int) {
        var innermost = [Int?](repeating: nil, count: items.count)
        var depth = [Int](repeating: 0, count: items.count)
        // Repeats in list order: an inner block closes before the block around it.
        for (r, item) in items.enumerated() {
            guard case let .repeats(from, _) = item else { continue }
            for k in from..<r {
                if case let .repeats(innerFrom, _) = items[k], innerFrom < from {
                    throw WorkoutError(step: r + 1, "the repeat's block (steps \(from + 1)–\(r)) cuts through "
                                       + "the repeat at step \(k + 1) (blocks must nest)")
                }
                if innermost[k] == nil { innermost[k] = r }
                depth[k] += 1
                guard depth[k] <= Self.maxNesting else {
                    throw WorkoutError(step: r + 1, "repeats nested more than \(Self.maxNesting) deep")
                }
            }
        }
        return (innermost, depth.max() ?? 0)
    }
}

extension WorkoutError {
    /// Durations longer than a day, or farther than 1000 km, are a file's garbage.
    static let maxStepTime = 86_400.0
    static let maxStepDistance = 1_000_000.0

    static func check(_ s: WorkoutStep, at here: Int) throws(WorkoutError) {
        switch s.duration {
        case let .time(t):
            guard t.isFinite else { throw WorkoutError(step: here, "a timed step without its time") }
            guard t > 0 && t <= maxStepTime else {
                throw WorkoutError(step: here, "a step of \(t.fixed(0)) s cannot be run")
            }
        case let .distance(d):
            guard d.isFinite else { throw WorkoutError(step: here, "a distance step without its distance") }
            guard d > 0 && d <= maxStepDistance else {
                throw WorkoutError(step: here, "a step of \(d.fixed(0)) m cannot be run")
            }
        case .open:
            break
        case let .heartRateAbove(level), let .heartRateBelow(level):
            try check(level, at: here, what: "a step that ends at a heart rate")
        }
        try check(s.target, at: here)
    }

    static func check(_ level: HeartRateLevel, at here: Int, what: String) throws(WorkoutError) {
        switch level {
        case let .bpm(v):
            guard v.isFinite else { throw WorkoutError(step: here, "\(what) gives no heart rate") }
            guard v >= 30 && v <= 250 else { throw WorkoutError(step: here, "\(what): \(v.fixed(0)) bpm is not a heart rate") }
        case let .percentOfMax(p):
            guard p.isFinite else { throw WorkoutError(step: here, "\(what) gives no heart rate") }
            guard p > 0 && p <= 100 else {
                throw WorkoutError(step: here, "\(what): \(p.fixed(0)) % of the maximum is not a heart rate")
            }
        }
    }

    static func check(_ target: StepTarget, at here: Int) throws(WorkoutError) {
        switch target {
        case .none:
            break
        case let .speed(low, high):
            // 30 m/s is 108 km/h: beyond any ride; zero is standing still, not a pace.
            guard low.isFinite && high.isFinite && low > 0 && high <= 30 else {
                throw WorkoutError(step: here, "the pace target is missing or out of range")
            }
            guard low <= high else { throw WorkoutError(step: here, "the pace range is inverted (slow end faster than fast end)") }
        case let .heartRate(low, high):
            try check(low, at: here, what: "the heart-rate target")
            try check(high, at: here, what: "the heart-rate target")
            if case let (.bpm(a), .bpm(b)) = (low, high), a > b {
                throw WorkoutError(step: here, "the heart-rate range \(a.fixed(0))–\(b.fixed(0)) bpm is inverted")
            }
            if case let (.percentOfMax(a), .percentOfMax(b)) = (low, high), a > b {
                throw WorkoutError(step: here, "the heart-rate range \(a.fixed(0))–\(b.fixed(0)) % is inverted")
            }
        case let .heartRateZone(z):
            guard (1...5).contains(z) else { throw WorkoutError(step: here, "heart-rate zone \(z) is not one of 1–5") }
        case let .cadence(low, high):
            guard low.isFinite && high.isFinite && low > 0 && high <= 400 else {
                throw WorkoutError(step: here, "the cadence target is missing or out of range")
            }
            guard low <= high else {
                throw WorkoutError(step: here, "the cadence range \(low.fixed(0))–\(high.fixed(0)) is inverted")
            }
        }
    }
}
