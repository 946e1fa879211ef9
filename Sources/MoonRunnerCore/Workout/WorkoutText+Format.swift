extension WorkoutText {
    /// A workout in the text form, every intensity spelt out, so that
    /// `parse(format(w))` gives `w` back for a workout the text can say
    /// (no notes, whole seconds of pace, repeats at most two deep):
    /// `15min warmup; 6x(800m @3:50-4:00/km interval, 90s rest); 10min cooldown`.
    public static func format(_ workout: Workout) -> String {
        render(workout.items, 0..<workout.items.count, ride: workout.sport == .ride).joined(separator: "; ")
    }

    /// The items in `range`, a repeat's block as "Nx(…)" (its outermost
    /// repeat first when several begin at the same step).
    private static func render(_ items: [WorkoutItem], _ range: Range<Int>, ride: Bool) -> [String] {
        var out: [String] = []
        var k = range.lowerBound
        while k < range.upperBound {
            let outer = (k..<range.upperBound).last { r in
                if case let .repeats(from, _) = items[r] { return from == k }
                return false
            }
            if let r = outer, case let .repeats(_, times) = items[r] {
                out.append("\(times)x(" + render(items, k..<r, ride: ride).joined(separator: ", ") + ")")
                k = r + 1
            } else {
                if case let .step(s) = items[k] { out.append(text(s, ride: ride)) }
                k += 1
            }
        }
        return out
    }

    static func text(_ s: WorkoutStep, ride: Bool) -> String {
        var parts = [text(s.duration)]
        if let t = text(s.target, ride: ride) { parts.append(t) }
        parts.append(s.intensity.rawValue)
        if let name = s.name { parts.append("\"" + String(name.map { $0 == "\"" ? "'" : $0 }) + "\"") }
        return parts.joined(separator: " ")
    }

    static func text(_ d: StepDuration) -> String {
        switch d {
        case let .time(t): return timeText(t)
        case let .distance(m): return distanceText(m)
        case .open: return "lap"
        case let .heartRateAbove(level): return "hr>" + levelText(level)
        case let .heartRateBelow(level): return "hr<" + levelText(level)
        }
    }

    /// `90s`, `15min`, `1h30min`, `2min30s`: seconds alone below ten minutes
    /// when not whole minutes, as runners write a rest.
    static func timeText(_ t: Double) -> String {
        guard t == t.rounded() else { return "\(t.shortText)s" }
        let whole = Int(t)
        if whole % 60 != 0 && whole < 600 { return "\(whole)s" }
        let (h, m, sec) = (whole / 3600, whole % 3600 / 60, whole % 60)
        var out = ""
        if h > 0 { out += "\(h)h" }
        if m > 0 { out += "\(m)min" }
        if sec > 0 { out += "\(sec)s" }
        return out
    }

    /// `800m` (whole metres from 100 to 999), `60mtr` below 100, `5km`, `1.5km`, `2mi`.
    static func distanceText(_ m: Double) -> String {
        let miles = m / 1609.344
        if miles >= 1 && abs(miles - miles.rounded()) < 1e-9 { return "\(miles.rounded().shortText)mi" }
        if m == m.rounded() && m >= 100 && m < 1000 { return "\(m.shortText)m" }
        if m < 100 { return "\(m.shortText)mtr" }
        return "\((m / 1000).shortText)km"
    }

    static func levelText(_ level: HeartRateLevel) -> String {
        switch level {
        case let .bpm(v): "\(v.shortText)bpm"
        case let .percentOfMax(p): "\(p.shortText)%"
        }
    }

    static func text(_ target: StepTarget, ride: Bool) -> String? {
        switch target {
        case .none:
            return nil
        case let .speed(low, high):
            if ride { return "@\(((low * 36).rounded() / 10).shortText)-\(((high * 36).rounded() / 10).shortText)km/h" }
            return "@\(clockText(1000 / high))-\(clockText(1000 / low))/km"
        case let .heartRate(.percentOfMax(a), .percentOfMax(b)):
            return "@\(a.shortText)-\(b.shortText)%"
        case let .heartRate(low, high):
            let profile = HeartRateProfile()
            return "@\(low.bpm(profile).rounded().shortText)-\(high.bpm(profile).rounded().shortText)bpm"
        case let .heartRateZone(z):
            return "@Z\(z)"
        case let .cadence(low, high):
            return "@\(low.shortText)-\(high.shortText)spm"
        }
    }

    /// Seconds per unit as `m:ss`.
    static func clockText(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return "\(s / 60):\((s % 60).zeroPadded(2))"
    }
}
