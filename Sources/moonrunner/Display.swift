import FoundationEssentials
import Glibc
import MoonRunnerCore
import MoonRunnerProtocol

/// Human-readable renderings of replies, in the seed app's formats.
enum Display {
    static func status(_ s: StatusReply, units: UnitSystem) -> String {
        var lines: [String] = []
        var state = s.state.rawValue
        if let t = s.lastTransition { state += "  (last: \(t.event), \(t.cause))" }
        lines.append("State     \(state)")
        if let id = s.session { lines.append("Session   #\(id) \(s.activity ?? "")") }
        lines.append("Elapsed   \(Formatting.duration(s.elapsedS))   Moving \(Formatting.duration(s.movingS))")
        lines.append("Distance  \(Formatting.distance(s.distanceM, units))")
        let shown = profile(s.activity)
        lines.append("\(shown.showsSpeed ? "Speed     " : "Pace      ")\(rate(s.speedMps, shown, units))   "
            + "avg \(rate(s.avgSpeedMps, shown, units))")
        if shown.countsSteps { lines.append("Steps     \(s.steps)   cadence \(Int(s.cadenceSpm.rounded())) spm") }
        if shown.tellsClimbRate, let climb = s.climbRateMPerH { lines.append("Climbing  \(Formatting.climbRate(climb, units))") }
        lines.append("Elevation \(elevation(s.elevationGainM, s.elevationLossM, units)) (\(s.altitudeSource.rawValue))   "
            + "laps \(s.laps)   \(Int(s.caloriesKcal.rounded())) kcal"
            + (s.caloriesMethod == .heartRate ? " (heart rate)" : ""))
        if let next = s.nextBadge {
            lines.append("Badge     next \(next.name) (\(Formatting.distance(next.distanceM, units))), "
                + "\(Formatting.distance(next.leftM, units)) to go")
        }
        if let hr = heartRate(s) { lines.append("Heart     \(hr)") }
        lines += navigation(s, units: units)
        lines.append("GPS       \(s.gps.health.rawValue) (signal \(s.gps.grade.rawValue))   IMU \(s.imu.health.rawValue)   "
            + "barometer \(s.baro.health.rawValue)   store \(s.store.health.rawValue)")
        if s.quiet == true { lines.append("Voice     muted (moonrunner announce --unmute)") }
        return lines.joined(separator: "\n")
    }

    /// One line per status, for pipes and logs.
    static func statusLine(_ s: StatusReply, units: UnitSystem) -> String {
        "\(s.state.rawValue) elapsed \(Formatting.duration(s.elapsedS)) moving \(Formatting.duration(s.movingS)) "
            + "\(Formatting.distance(s.distanceM, units)) \(profile(s.activity).showsSpeed ? "speed" : "pace") "
            + "\(rate(s.speedMps, profile(s.activity), units)) "
            + "steps \(s.steps) cadence \(Int(s.cadenceSpm.rounded())) spm gps \(s.gps.health.rawValue)/\(s.gps.grade.rawValue) imu \(s.imu.health.rawValue)"
            + (heartRate(s).map { " hr \($0)" } ?? "")
            + navigationLine(s, units: units)
    }

    /// The rules of the activity a reply names (a run's for one this CLI does not know).
    static func profile(_ activity: String?) -> ActivityProfile {
        (activity.flatMap(Activity.init(rawValue:)) ?? .run).profile
    }

    /// A speed as the activity shows it: a pace (`5:12 min/km`) or a speed (`24.3 km/h`).
    static func rate(_ speed: Double, _ profile: ActivityProfile, _ units: UnitSystem) -> String {
        Formatting.rate(speed: speed, units, for: profile)
    }

    /// `152 bpm, zone 4 (connected)`, `-- (lost)`; nil without a strap.
    static func heartRate(_ s: StatusReply) -> String? {
        guard let state = s.hrState, state != .none else { return nil }
        let bpm = s.hrBpm.map { "\(Int($0.rounded())) bpm" } ?? "--"
        let zone = s.hrZone.map { ", zone \($0)" } ?? ""
        return "\(bpm)\(zone) (\(state.rawValue))"
    }

    static func event(_ e: EventReply) -> String {
        var text = "event \(e.event) (\(e.cause)) → \(e.state.rawValue)"
        if let d = e.detail, !d.isEmpty { text += ": \(d)" }
        return text
    }

    /// `+12 m / -8 m` (feet in imperial units), `0 m` when flat: as the phone shows it.
    static func elevation(_ gain: Double, _ loss: Double, _ units: UnitSystem) -> String {
        Formatting.elevation(gain: gain, loss: loss, units)
    }

    static func date(_ t: Double) -> String {
        LocalTime.dateAndMinute(t)
    }

    static func sessions(_ list: [SessionInfo], units: UnitSystem) -> String {
        guard !list.isEmpty else { return "no sessions yet" }
        var out = ["   ID  START             ACTIVITY   DISTANCE    MOVING     STEPS  STATE"]
        for s in list {
            let state = s.interrupted ? "\(s.state.rawValue) (interrupted)" : s.state.rawValue
            out.append(pad(String(s.id), 5, right: true) + "  " + date(s.startTime) + "  " + pad(s.activity, 8) + " "
                + pad(Formatting.distance(s.distanceM, units), 9, right: true) + "  " + Formatting.duration(s.movingS)
                + "  " + pad(String(s.steps), 8, right: true) + "  " + state)
        }
        return out.joined(separator: "\n")
    }

    static func session(_ r: SessionReply, units: UnitSystem) -> String {
        let s = r.stats
        let shown = profile(r.session.activity)
        var lines = [
            "Session   #\(r.session.id) \(r.session.activity), \(r.session.state.rawValue)\(r.session.interrupted ? " (interrupted)" : "")",
            "Started   \(date(r.session.startTime))",
            "Distance  \(Formatting.distance(s.distance, units))",
            "Elapsed   \(Formatting.duration(s.elapsed))   Moving \(Formatting.duration(s.moving))",
            (shown.showsSpeed ? "Avg speed \(Formatting.speed(s.averageSpeed, units))"
                : "Avg pace  \(Formatting.pace(speed: s.averageSpeed, units))") + "   max speed \(Formatting.speed(s.maxSpeed, units))",
            "Steps     \(s.steps)   avg cadence \(Int(s.averageCadence.rounded())) spm",
            "Elevation \(elevation(s.elevationGain, s.elevationLoss, units)) (\(altitudeSources(s)))",
            "Calories  \(Int(r.figures.caloriesKcal.rounded())) kcal\(r.figures.caloriesMethod == .heartRate ? " (heart rate)" : "")   best pace "
                + (r.figures.bestPaceSPerKm.map { Formatting.pace(speed: 1000 / $0, units) } ?? "--:--"),
            "Points    \(r.points)   laps \(s.laps)   pauses \(r.pauses.count)",
        ]
        if let hr = r.figures.heartRate, let average = hr.avgBpm, let maximum = hr.maxBpm {
            lines.append("Heart     avg \(Int(average.rounded())) bpm, max \(Int(maximum.rounded())) bpm, TRIMP \(Int(hr.trimp.rounded()))")
            lines.append("Zones     " + hr.zoneS.enumerated().map { "\($0.offset + 1) \(Formatting.duration($0.element))" }
                .joined(separator: "  "))
        }
        if let c = r.course {
            lines.append("Course    \(c.name)\(c.id.map { " (#\($0))" } ?? "")\(c.finished ? ", finished" : ", not finished")")
        }
        let splits = units == .metric ? r.figures.splitsKm : r.figures.splitsMi
        if !splits.isEmpty {
            lines.append("Splits (\(units.distanceSymbol))")
            for sp in splits {
                let pace = sp.paceS.map { rate(units.metresPerUnit / $0, shown, units) } ?? "--:--"
                let label = sp.partial ? Formatting.distance(sp.distanceM, units) : "\(sp.number)"
                lines.append("  " + pad(label, 9, right: true) + "  " + Formatting.duration(sp.movingS) + "  " + pace)
            }
        }
        if r.figures.laps.count > 1 {
            lines.append("Laps")
            for lap in r.figures.laps {
                lines.append("  " + pad(String(lap.number), 3, right: true) + "  " + pad(Formatting.distance(lap.distanceM, units), 9, right: true)
                    + "  " + Formatting.duration(lap.movingS) + "  " + rate(lap.avgSpeedMps, shown, units)
                    + "  \(lap.steps) steps")
            }
        }
        if !r.events.isEmpty {
            lines.append("Events")
            let t0 = r.session.startTime
            for e in r.events {
                lines.append("  +\(Formatting.duration(e.time - t0))  \(e.event) (\(e.cause))" + (e.detail.map { ": \($0)" } ?? ""))
            }
        }
        return lines.joined(separator: "\n")
    }

    static func badges(_ r: BadgesReply, units: UnitSystem) -> String {
        let shown = profile(r.activity)
        var lines = ["BADGE     DISTANCE   TIER     EARNED BY        BEST"]
        if shown.activity != .run { lines.insert("Badges of the \(shown.sport.noun)s", at: 0) }
        for b in r.badges {
            let earned = b.earned.map { "#\($0.session) \(date($0.startTime).prefix(10))" } ?? "-"
            let best = b.best.map { "#\($0.session) \(rate($0.avgSpeedMps, shown, units))" } ?? "-"
            lines.append(pad(b.name, 8) + "  " + pad(Formatting.distance(b.distanceM, units), 9, right: true) + "  "
                + pad(b.tier ?? "-", 7) + "  " + pad(earned, 15) + "  " + best)
        }
        if let longest = r.longest, shown.activity == .ride {
            lines.append("Longest ride: #\(longest.session) \(Formatting.distance(longest.distanceM, units))")
        }
        if let next = r.next {
            lines.append("Next: \(next.name) (\(Formatting.distance(next.distanceM, units))), "
                + "\(Formatting.distance(next.leftM, units)) to go in session #\(r.session.map(String.init) ?? "?")")
        }
        return lines.joined(separator: "\n")
    }

    /// The configuration as indented `key: value` lines, like the YAML file.
    static func config(_ value: JSONValue, indent: String = "") -> String {
        guard case let .object(map) = value else { return indent + scalar(value) }
        var lines: [String] = []
        for key in map.keys.sorted() {
            guard let v = map[key] else { continue }
            if case .object = v {
                lines.append("\(indent)\(key):")
                lines.append(config(v, indent: indent + "  "))
            } else {
                lines.append("\(indent)\(key): \(scalar(v))")
            }
        }
        return lines.joined(separator: "\n")
    }

    private static func scalar(_ v: JSONValue) -> String {
        if case let .string(s) = v { return s.isEmpty ? "\"\"" : s }
        return v.serialized
    }

    static func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - s.count))
        return right ? fill + s : s + fill
    }

    /// `dem` or, when more than one source gave the altitude, each with its share: `dem 96 %, gps 4 %`.
    static func altitudeSources(_ s: SessionStats) -> String {
        let shares = s.altitudeShares
        let parts = [("barometric", shares.barometric), ("dem", shares.dem), ("gps", shares.gps)].filter { $0.1 > 0.005 }
        guard parts.count > 1 else { return s.altitudeSource.rawValue }
        return parts.map { "\($0.0) \(Int(($0.1 * 100).rounded())) %" }.joined(separator: ", ")
    }
}
