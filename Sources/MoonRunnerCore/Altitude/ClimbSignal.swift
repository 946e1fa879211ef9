/// The altitude the climbs are counted on, across gaps in the terrain model.
///
/// * On the terrain it is the terrain's own elevation, so that a loop over
///   a DEM comes back to where it started and climbs equal descents.
/// * In a gap (a void, a stretch without a tile) it holds for the first
///   `terrainCorrelation` metres: if the terrain comes back within them, the
///   two ends' elevations share their error, so the change across the gap is
///   the terrain's and counts then; what GPS wandered meanwhile counts
///   nothing. A longer gap starts counting afresh on GPS from there, and on
///   the terrain again after it.
/// * Any other change of source (the barometer, GPS restarting on its own)
///   starts counting afresh, as before terrain models.
struct ClimbSignal: Sendable, Equatable {
    /// Where the gap began (metres travelled) while it is short enough to be bridged; NaN otherwise.
    private var gapFrom = Double.nan
    /// The value held through such a gap.
    private var held = Double.nan
    private var last = Double.nan
    private var demSeen = false

    /// The source changed from `old` to `new` (`gpsRestarted`: GPS restarted at the same fix).
    /// True when the climb counter must start afresh.
    mutating func switched(from old: AltitudeSource, to new: AltitudeSource, gpsRestarted: Bool,
                           travelled: Double) -> Bool {
        if old == .dem && new == .gps && !gpsRestarted && last.isFinite {
            gapFrom = travelled
            held = last
            return false
        }
        let bridged = old == .gps && new == .dem && demSeen && gapFrom.isFinite && !gpsRestarted
        gapFrom = .nan
        return !bridged
    }

    /// GPS restarted inside a gap: its level jumped; the gap is no longer bridged.
    mutating func gpsRestarted() {
        gapFrom = .nan
    }

    /// The value to count for the source's own signal now, and whether the counter must start
    /// afresh first (a gap that just grew too long to bridge).
    mutating func counted(_ own: Double, source: AltitudeSource, travelled: Double,
                          config: AltitudeFusionConfig) -> (value: Double, restart: Bool) {
        if source == .dem { demSeen = true }
        guard source == .gps, gapFrom.isFinite else {
            if own.isFinite { last = own }
            return (own, false)
        }
        if travelled - gapFrom <= config.terrainCorrelation { return (held, false) }
        gapFrom = .nan
        if own.isFinite { last = own }
        return (own, true)
    }
}
