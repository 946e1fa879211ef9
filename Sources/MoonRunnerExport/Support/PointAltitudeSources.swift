import MoonRunnerCore

/// Where each point's altitude came from, for the formats that say it per
/// point (CSV's `ele_source`). The store keeps the session's counts, not a
/// source per point; the stretches are told by the events: a session whose
/// altitude came from the terrain model had it from GPS between each
/// `terrain_lost` and the next `terrain_regained`. A barometric session had
/// it from the barometer throughout (the terrain model, where present, only
/// set its level), and a session with neither from GPS.
enum PointAltitudeSources {
    static func of(_ session: ExportSession) -> [AltitudeSource] {
        let stats = session.stats
        guard stats.demPoints > 0, stats.altitudeSource != .barometric else {
            let whole: AltitudeSource = stats.altitudeSource == .barometric ? .barometric : .gps
            return Array(repeating: whole, count: session.points.count)
        }
        // The spans without terrain, in time order.
        var gaps: [(start: Double, end: Double)] = []
        for e in session.events {
            switch e.kind {
            case .terrainLost: gaps.append((e.time, .infinity))
            case .terrainRegained: if let last = gaps.last, last.end == .infinity { gaps[gaps.count - 1].end = e.time }
            default: break
            }
        }
        var g = 0
        return session.points.map { p in
            while g < gaps.count && gaps[g].end <= p.time { g += 1 }
            return g < gaps.count && gaps[g].start <= p.time ? .gps : .dem
        }
    }
}
