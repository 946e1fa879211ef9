/// Counts climbs and descents of an altitude signal with hysteresis: the
/// altitude only counts once it has moved a band away from the last turning
/// point, so wiggles smaller than the band (noise) add nothing, whatever
/// their number, and a real climb counts in full.
struct ClimbCounter: Sendable, Equatable {
    private var anchor = Double.nan

    /// The next altitude becomes the reference: nothing before it counts
    /// (a pause, a standstill, a change of altitude source).
    mutating func restart() {
        anchor = .nan
    }

    /// Feeds one altitude; returns what it adds to the gain and to the loss.
    mutating func update(_ h: Double, band: Double) -> (gain: Double, loss: Double) {
        guard h.isFinite else { return (0, 0) }
        guard anchor.isFinite else {
            anchor = h
            return (0, 0)
        }
        let delta = h - anchor
        if delta >= band {
            anchor = h
            return (delta, 0)
        }
        if delta <= -band {
            anchor = h
            return (0, -delta)
        }
        return (0, 0)
    }
}
