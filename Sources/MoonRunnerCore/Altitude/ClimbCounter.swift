/// Counts climbs and descents of an altitude signal with hysteresis: wiggles
/// smaller than the band (noise) add nothing, whatever their number, and a
/// real climb or descent counts in full, from the turning point it started at
/// to the one it ends at.
///
/// A swing is confirmed once the altitude has moved a band away from the
/// running extreme since the last confirmed turn, and counts from that
/// extreme; a counter that moved its reference to the last counted sample
/// would leave up to a band uncounted at every top and bottom (about 20 m on
/// a trail of twenty crests with a 2 m band). While climbing, each new high
/// counts at once. The band may change from sample to sample (the fix's
/// vertical error, the terrain's relief). O(1) state; nothing here reads time.
struct ClimbCounter: Sendable, Equatable {
    /// The last confirmed swing: climbing, descending, or none since the reference.
    private enum Swing: Sendable, Equatable { case none, up, down }
    private var swing = Swing.none
    /// Lowest altitude since the reference (no swing yet) or since the climb
    /// ended (descending: the running bottom); NaN before the reference.
    private var low = Double.nan
    /// Highest altitude since the reference (no swing yet) or since the
    /// descent ended (climbing: the running top).
    private var high = Double.nan

    /// The next altitude becomes the reference: nothing before it counts
    /// (a pause, a standstill, a change of altitude source).
    mutating func restart() {
        self = ClimbCounter()
    }

    /// Feeds one altitude; returns what it adds to the gain and to the loss.
    mutating func update(_ h: Double, band: Double) -> (gain: Double, loss: Double) {
        guard h.isFinite else { return (0, 0) }
        guard low.isFinite else {
            low = h
            high = h
            return (0, 0)
        }
        switch swing {
        case .none:
            if h - low >= band { return climb(to: h, from: low) }
            if high - h >= band { return descend(to: h, from: high) }
            low = min(low, h)
            high = max(high, h)
        case .up:
            if h > high {
                let gain = h - high
                high = h
                return (gain, 0)
            }
            if high - h >= band { return descend(to: h, from: high) }
        case .down:
            if h < low {
                let loss = low - h
                low = h
                return (0, loss)
            }
            if h - low >= band { return climb(to: h, from: low) }
        }
        return (0, 0)
    }

    /// A climb confirmed at `h`, counted from the bottom it started at.
    private mutating func climb(to h: Double, from bottom: Double) -> (gain: Double, loss: Double) {
        swing = .up
        high = h
        return (h - bottom, 0)
    }

    /// A descent confirmed at `h`, counted from the top it started at.
    private mutating func descend(to h: Double, from top: Double) -> (gain: Double, loss: Double) {
        swing = .down
        low = h
        return (0, top - h)
    }
}
