import Foundation
import MoonRunnerCore
import MoonRunnerProtocol

/// Human-readable renderings of replies, in the seed app's formats.
enum Display {
    static func status(_ s: StatusReply, units: UnitSystem) -> String {
        var lines: [String] = []
        var state = s.state
        if let t = s.lastTransition { state += "  (last: \(t.event), \(t.cause))" }
        lines.append("State     \(state)")
        if let id = s.session { lines.append("Session   #\(id) \(s.activity ?? "")") }
        lines.append("Elapsed   \(Formatting.duration(s.elapsedS))   Moving \(Formatting.duration(s.movingS))")
        lines.append("Distance  \(Formatting.distance(s.distanceM, units))")
        lines.append("Pace      \(Formatting.pace(speed: s.speedMps, units))   avg \(Formatting.pace(speed: s.avgSpeedMps, units))")
        lines.append("Steps     \(s.steps)   cadence \(Int(s.cadenceSpm.rounded())) spm")
        lines.append(String(format: "Elevation +%.0f m / -%.0f m", s.elevationGainM, s.elevationLossM))
        lines.append("GPS       \(s.gps.health) (signal \(s.gps.grade))   IMU \(s.imu.health)   store \(s.store.health)")
        return lines.joined(separator: "\n")
    }

    /// One line per status, for pipes and logs.
    static func statusLine(_ s: StatusReply, units: UnitSystem) -> String {
        "\(s.state) elapsed \(Formatting.duration(s.elapsedS)) moving \(Formatting.duration(s.movingS)) "
            + "\(Formatting.distance(s.distanceM, units)) pace \(Formatting.pace(speed: s.speedMps, units)) "
            + "steps \(s.steps) cadence \(Int(s.cadenceSpm.rounded())) spm gps \(s.gps.health)/\(s.gps.grade) imu \(s.imu.health)"
    }

    static func event(_ e: EventReply) -> String {
        "event \(e.event) (\(e.cause)) → \(e.state)"
    }

    static func sessions(_ list: [SessionInfo], units: UnitSystem) -> String {
        guard !list.isEmpty else { return "no sessions yet" }
        var out = ["   ID  START                 ACTIVITY  DISTANCE   MOVING    STEPS  STATE"]
        let f = DateFormatter()
        f.dateFormat = "yyyy-MM-dd HH:mm:ss"
        for s in list {
            let start = f.string(from: Date(timeIntervalSince1970: s.startTime))
            let state = s.interrupted ? "\(s.state) (interrupted)" : s.state
            out.append(String(format: "%5lld  %@   %-8@  %9@  %@  %6d  %@", s.id, start, s.activity,
                              Formatting.distance(s.distanceM, units), Formatting.duration(s.movingS), s.steps, state))
        }
        return out.joined(separator: "\n")
    }

    static func session(_ r: SessionReply, units: UnitSystem) -> String {
        let s = r.stats
        let f = DateFormatter()
        f.dateFormat = "yyyy-MM-dd HH:mm:ss"
        var lines = [
            "Session   #\(r.session.id) \(r.session.activity), \(r.session.state)\(r.session.interrupted ? " (interrupted)" : "")",
            "Started   \(f.string(from: Date(timeIntervalSince1970: r.session.startTime)))",
            "Distance  \(Formatting.distance(s.distance, units))",
            "Elapsed   \(Formatting.duration(s.elapsed))   Moving \(Formatting.duration(s.moving))",
            "Avg pace  \(Formatting.pace(speed: s.averageSpeed, units))   max speed \(Formatting.speed(s.maxSpeed, units))",
            "Steps     \(s.steps)   avg cadence \(Int(s.averageCadence.rounded())) spm",
            String(format: "Elevation +%.0f m / -%.0f m", s.elevationGain, s.elevationLoss),
            "Points    \(r.points)   laps \(s.laps)   pauses \(r.pauses.count)",
        ]
        if !r.events.isEmpty {
            lines.append("Events")
            let t0 = r.session.startTime
            for e in r.events {
                lines.append("  +\(Formatting.duration(e.time - t0))  \(e.event) (\(e.cause))")
            }
        }
        return lines.joined(separator: "\n")
    }
}
