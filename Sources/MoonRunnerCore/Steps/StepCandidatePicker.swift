/// One peak of the gait signal that may be a step.
struct StepCandidate: Sendable {
    /// Instant of the peak (trace clock), interpolated between ticks.
    var t: Double
    /// Rise from the lowest point since the previous candidate to the peak
    /// (both interpolated between ticks), g.
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
        // The lowest point since the last candidate, and the peak, are taken
        // at the vertex of the parabola through three ticks: how high a peak
        // looks must not depend on where the 20 Hz ticks happen to fall.
        if z1 < z2, z1 <= z {
            valley = min(valley, Self.vertex(z2, z1, z).value)
        }
        valley = min(valley, z)
        // z1 (one tick ago) is a positive local maximum?
        guard z1 > z2, z1 >= z, z1 > 0 else { return out }
        let peak = Self.vertex(z2, z1, z)
        let tp = t + (peak.shift - 1) * GaitBandSignal.tickInterval
        let swing = peak.value - valley
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

    /// Vertex of the parabola through (-1, a), (0, b), (1, c): its offset
    /// from the middle tick, in ticks (within ±0.5), and its value.
    @inline(__always)
    static func vertex(_ a: Double, _ b: Double, _ c: Double) -> (shift: Double, value: Double) {
        let curvature = a - 2 * b + c
        guard curvature != 0 else { return (0, b) }
        let shift = 0.5 * (a - c) / curvature
        return (shift, b - 0.25 * (a - c) * shift)
    }

    private mutating func release() -> StepCandidate {
        held = false
        return StepCandidate(t: heldT, swing: heldSwing)
    }
}
