/// Where the altitude passes between the terrain model and GPS (a track
/// leaving a tile, a void, a missing tile), the profile carries on without a
/// step: GPS altitude wanders tens of metres from the ground's, and a step
/// would be a phantom climb in every picture and grade.
///
/// Onto GPS, the profile keeps the terrain's level and GPS gives the changes
/// (GPS altitude + `offset`); onto the terrain model, the better level, the
/// offset eases away over `terrainEase` metres travelled. Climbs are counted
/// on each source's own signal (`AltitudeFusion`), never on this offset, so
/// the easing adds no climb. GPS to the barometer and back leaves it at zero.
struct AltitudeSeam: Sendable, Equatable {
    /// Metres added to the source's own altitude.
    private var offset = 0.0
    /// Distance travelled at the seam, metres; NaN while the offset holds.
    private var easingFrom = Double.nan

    /// The source changed from `old` to `new`, at `travelled` metres: `shownBefore` was the
    /// profile's last altitude, `signal` is the new source's own altitude now.
    mutating func switched(from old: AltitudeSource, to new: AltitudeSource, shownBefore: Double, signal: Double,
                           travelled: Double) {
        guard old == .dem || new == .dem, new != .barometric, shownBefore.isFinite, signal.isFinite else {
            self = AltitudeSeam()
            return
        }
        offset = shownBefore - signal
        easingFrom = new == .dem ? travelled : .nan
    }

    /// The offset now, `travelled` metres into the session.
    func offset(travelled: Double, config: AltitudeFusionConfig) -> Double {
        guard offset != 0 else { return 0 }
        guard easingFrom.isFinite else { return offset }
        let k = max(0, 1 - (travelled - easingFrom) / max(config.terrainEase, 1))
        return offset * k
    }
}
