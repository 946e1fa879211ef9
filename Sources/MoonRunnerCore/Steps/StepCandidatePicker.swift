/// One peak of the gait signal that may be a step.
struct StepCandidate: Sendable {
    /// Instant of the peak (trace clock), interpolated between ticks.
    var t: Double
    /// Rise from the lowest point since the previous candidate to the peak, g.
    var swing: Double
}

/// Picks step candidates out of the ticked gait signal: positive local
/// maxima, of which only the highest within `minGap` survives (a heel strike
/// and the push-off that follows it make one step, not two).
///
/// A peak is held back until `minGap` has passed without a higher one, so a
/// candidate comes out at most `minGap` (well under a second) late.
struct StepCandidatePicker: Sendable {
    private var z1 = 0.0, z2 = 0.0
    private var valley = 0.0
    private var held = false
    private var heldT = 0.0
    private var heldValue = 0.0
    private var heldSwing = 0.0

    /// Feeds one tick (`t`, `z`); returns a candidate when one is settled.
    @inline(__always)
    mutating func push(t: Double, z: Double, minGap: Double) -> StepCandidate? {
        defer {
            z2 = z1
            z1 = z
        }
        var out: StepCandidate?
        // A peak is seen one tick after it happens (z1), so the held one is
        // released one tick later than `minGap`: a peak inside the gap must
        // always get the chance to merge with it.
        if held && t - heldT >= minGap + GaitBandSignal.tickInterval {
            out = release()
        }
        if z < valley { valley = z }
        // z1 (one tick ago) is a positive local maximum?
        guard z1 > z2, z1 >= z, z1 > 0 else { return out }
        let den = z2 - 2 * z1 + z
        let shift = den < 0 ? 0.5 * (z2 - z) / den : 0
        let tp = t + (shift - 1) * GaitBandSignal.tickInterval
        let swing = z1 - valley
        if held {
            if tp - heldT < minGap {
                if z1 > heldValue {
                    heldT = tp
                    heldValue = z1
                    heldSwing = max(heldSwing, swing)
                }
                return out
            }
            out = release()
        }
        held = true
        heldT = tp
        heldValue = z1
        heldSwing = swing
        valley = z1
        return out
    }

    private mutating func release() -> StepCandidate {
        held = false
        return StepCandidate(t: heldT, swing: heldSwing)
    }
}
