/// The short text form of a workout, for the command line and the phone:
///
///     15m easy; 6x(800m @3:50-4:00/km, 90s rest); 10m easy
///
/// Parsed here, in the core, because everything that takes a workout (the
/// CLI, the web app, the daemon's library, `analyze`) reaches the core and
/// none of them should own the grammar. The grammar (EBNF) and the rules
/// beside it (`m` alone is minutes below 100 and metres from 100 up; which
/// intensity `easy` is; a single value is a band around it) are in
/// docs/algorithms.md, "Workouts", and moonrunner-protocol(7); the parser
/// below follows them rule by rule.
public enum WorkoutText {
    /// Reads `text` as a workout named `name` for `sport`, checked (`Workout.validate()`).
    public static func parse(_ text: String, name: String = "workout",
                             sport: Activity? = nil) throws(WorkoutTextError) -> Workout {
        var p = WorkoutTextParser(text)
        let steps = try p.workout()
        let workout = Workout(name: name, sport: sport, items: steps)
        do {
            try workout.validate()
        } catch {
            throw WorkoutTextError(line: 1, column: 1, "\(error)")
        }
        return workout
    }
}

/// Where the text form went wrong (1-based line and column) and what was expected there.
public struct WorkoutTextError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var message: String

    public init(line: Int, column: Int, _ message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String { "line \(line), column \(column): \(message)" }
}

/// A recursive-descent parser over the text's Unicode scalars.
struct WorkoutTextParser {
    let s: [Unicode.Scalar]
    var i = 0
    private var items: [WorkoutItem] = []
    /// Per step item: the intensity word given (nil: none) and whether it is inside a repeat.
    private var words: [Int: (word: String?, inRepeat: Bool)] = [:]

    static let maxDepth = 2

    init(_ text: String) {
        s = Array(text.unicodeScalars)
    }

    mutating func workout() throws(WorkoutTextError) -> [WorkoutItem] {
        skipSeparators()
        guard i < s.count else { throw error("expected a step (e.g. 15min easy) but the text is empty") }
        try list(depth: 0)
        guard i >= s.count else {
            throw error(peek == ")" ? "a \")\" without its \"(\"" : "expected \";\" or \",\" between steps, found \(found)")
        }
        resolveIntensities()
        return items
    }

    /// Items separated by separators, up to the end or a ")".
    private mutating func list(depth: Int) throws(WorkoutTextError) {
        while true {
            try item(depth: depth)
            let hadSeparator = skipSeparators()
            guard i < s.count, peek != ")" else { return }
            guard hadSeparator else { return }
        }
    }

    private mutating func item(depth: Int) throws(WorkoutTextError) {
        skipSpaces()
        let start = i
        if let count = digits(), matchRepeatSign() {
            try repeatBlock(times: count, depth: depth, at: start)
            return
        }
        i = start
        try step(inRepeat: depth > 0)
    }

    /// After "Nx": "(" items ")".
    private mutating func repeatBlock(times: Int, depth: Int, at start: Int) throws(WorkoutTextError) {
        guard depth < Self.maxDepth else { throw error("repeats nest at most \(Self.maxDepth) deep", at: start) }
        guard (1...Workout.maxRounds).contains(times) else {
            throw error("a repeat of \(times) rounds (1 to \(Workout.maxRounds))", at: start)
        }
        skipSpaces()
        guard take("(") else { throw error("expected \"(\" after \(times)x, found \(found)") }
        skipSeparators()
        let from = items.count
        try list(depth: depth + 1)
        guard take(")") else { throw error("expected \")\" to close the repeat, or \";\" before the next step, found \(found)") }
        guard items.count > from else { throw error("the repeat holds no step", at: start) }
        items.append(.repeats(from: from, times: times))
    }

    private mutating func step(inRepeat: Bool) throws(WorkoutTextError) {
        let duration = try ending()
        var target: StepTarget?, word: String?, name: String?
        while true {
            skipSpaces()
            let at = i
            guard let c = peek, !Self.isSeparator(c), c != ")" else { break }
            if c == "@" {
                guard target == nil else { throw error("a step has one target", at: at) }
                target = try self.target()
            } else if c == "\"" {
                guard name == nil else { throw error("a step has one name", at: at) }
                name = try quoted()
            } else if let w = letters(), Self.intensities[w] != nil {
                guard word == nil else { throw error("a step has one intensity word", at: at) }
                word = w
            } else {
                i = at
                throw error("expected a target (@…), an intensity word (easy, rest, …) or a name (\"…\"), found \(found)")
            }
        }
        words[items.count] = (word, inRepeat)
        items.append(.step(WorkoutStep(duration: duration, target: target ?? .none, intensity: .active, name: name)))
    }

    /// Every step's intensity from its word and its place (see `WorkoutText`).
    private mutating func resolveIntensities() {
        var hard: [Int] = []
        for k in items.indices {
            guard let w = words[k] else { continue }
            let given = w.word.flatMap { Self.intensities[$0] ?? nil }
            let intensity = w.word == nil ? (w.inRepeat ? .interval : .active) : given
            if intensity == .interval || intensity == .active { hard.append(k) }
            if let intensity, case var .step(step) = items[k] {
                step.intensity = intensity
                items[k] = .step(step)
            }
        }
        for k in items.indices where words[k]?.word == "easy" {
            guard case var .step(step) = items[k], let inRepeat = words[k]?.inRepeat else { continue }
            if inRepeat {
                step.intensity = .recovery
            } else if let first = hard.first, let last = hard.last {
                step.intensity = k < first ? .warmup : k > last ? .cooldown : .recovery
            } else {
                step.intensity = .active
            }
            items[k] = .step(step)
        }
    }

    /// Intensity words; `easy` (nil) is placed by `resolveIntensities`.
    static let intensities: [String: StepIntensity?] = [
        "easy": nil, "warmup": .warmup, "wu": .warmup, "cooldown": .cooldown, "cd": .cooldown, "rest": .rest,
        "recovery": .recovery, "jog": .recovery, "interval": .interval, "hard": .interval, "active": .active,
    ]
}

// MARK: Durations and targets

extension WorkoutTextParser {
    /// A step's ending: a time, a distance, `lap` or a heart-rate end.
    private mutating func ending() throws(WorkoutTextError) -> StepDuration {
        skipSpaces()
        let at = i
        if let w = letters() {
            if w == "lap" { return .open }
            if w == "hr" {
                skipSpaces()
                let above = take(">")
                guard above || take("<") else { throw error("expected \"<\" or \">\" after hr, found \(found)") }
                let level = try self.level()
                return above ? .heartRateAbove(level) : .heartRateBelow(level)
            }
            i = at
        }
        guard let first = number() else {
            throw error("expected a step: a time (90s, 15min), a distance (800m, 5km), lap or hr<130, found \(found)")
        }
        return try timeOrDistance(first, at: at)
    }

    private mutating func timeOrDistance(_ first: Double, at: Int) throws(WorkoutTextError) -> StepDuration {
        skipSpaces()
        let unitAt = i
        guard let unit = letters() else { throw error("expected a unit after \(first.shortText) (s, min, h, m, km, mi)") }
        switch unit {
        case "km": return .distance(first * 1000)
        case "mi": return .distance(first * 1609.344)
        case "mtr": return .distance(first)
        case "m":
            // `m` alone: minutes below 100, metres from 100 up; followed by seconds, minutes.
            let save = i
            skipSpaces()
            let compound = peek.map { Self.isDigit($0) } == true
            i = save
            if !compound && first >= 100 { return .distance(first) }
            return .time(try compoundTime(first, unit: "m", at: unitAt))
        default:
            return .time(try compoundTime(first, unit: unit, at: unitAt))
        }
    }

    /// A time of one or more parts, hours before minutes before seconds.
    private mutating func compoundTime(_ first: Double, unit: String, at: Int) throws(WorkoutTextError) -> Double {
        let order = ["h": 0, "m": 1, "min": 1, "s": 2, "sec": 2]
        let scale = [3600.0, 60, 1]
        guard var rank = order[unit] else { throw error("\"\(unit)\" is not a unit of time or distance", at: at) }
        var total = first * scale[rank]
        while true {
            let save = i
            skipSpaces()
            guard let v = number() else {
                i = save
                return total
            }
            skipSpaces()
            let partAt = i
            guard let u = letters(), let r = order[u] else { throw error("expected a unit of time after \(v.shortText)") }
            guard r > rank else { throw error("the parts of a time go hours, minutes, seconds", at: partAt) }
            rank = r
            total += v * scale[r]
        }
    }

    /// A heart rate: a number, bpm unless followed by "%".
    private mutating func level() throws(WorkoutTextError) -> HeartRateLevel {
        skipSpaces()
        guard let v = number() else { throw error("expected a heart rate (130, 130bpm or 75%), found \(found)") }
        let save = i
        skipSpaces()
        if take("%") { return .percentOfMax(v) }
        // "bpm" may follow; any other word is the step's next attribute.
        if letters() != "bpm" { i = save }
        return .bpm(v)
    }

    /// "@" and a target.
    private mutating func target() throws(WorkoutTextError) -> StepTarget {
        _ = take("@")
        skipSpaces()
        let at = i
        if let w = letters() {
            guard w == "z", let z = digits() else {
                throw error("expected a target: a pace (4:00/km), bpm, a zone (Z2), spm or km/h, found \"\(w)\"", at: at)
            }
            return .heartRateZone(z)
        }
        guard let a = number() else {
            throw error("expected a target: a pace (4:00/km), bpm, a zone (Z2), spm or km/h, found \(found)")
        }
        if peek == ":" { return try pace(firstMinutes: a, at: at) }
        return try rangeTarget(a, at: at)
    }
}
