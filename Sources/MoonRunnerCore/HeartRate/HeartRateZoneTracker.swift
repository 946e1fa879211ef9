/// The wearer's heart-rate zone as the announcer tells it: a zone changes only
/// when the heart rate is past the boundary by `margin` and stays past it for
/// `dwell` seconds, so a heart rate that hovers at a boundary says nothing
/// and one that crosses it says so once.
///
/// `margin` (3 bpm) is wider than a strap's beat-to-beat scatter at a steady
/// effort (±2 bpm: the jitter) plus the 1 bpm of its rounding; `dwell`
/// (3 s) outlasts one or two readings spoilt by a strap shifting on the chest.
/// Time in zones is counted without hysteresis (`HeartRateSummary`): this is
/// only about when to speak. Pure; time comes in with each reading.
public struct HeartRateZoneTracker: Sendable, Equatable {
    /// Where zones 2–5 begin, bpm.
    public let floors: [Double]
    public var margin = 3.0
    public var dwell = 3.0
    /// The zone now (1–5); nil before the first heart rate.
    public private(set) var zone: Int?
    private var candidate: Int?
    private var candidateSince = 0.0

    public init(floors: [Double]) {
        self.floors = floors
    }

    /// A heart rate at `t`; returns the new zone when the wearer has crossed into one.
    public mutating func update(bpm: Double, at t: Double) -> Int? {
        guard bpm.isFinite else {
            candidate = nil
            return nil
        }
        guard let current = zone else {
            zone = plainZone(bpm)
            return nil
        }
        var target: Int?
        // Up: the highest zone whose floor it passed by the margin; down: the
        // lowest zone whose ceiling (the next floor) it fell below by it.
        for k in stride(from: 5, to: current, by: -1) where bpm >= floors[k - 2] + margin {
            target = k
            break
        }
        if target == nil {
            for k in 1..<current where bpm < floors[k - 1] - margin {
                target = k
                break
            }
        }
        guard let target else {
            candidate = nil
            return nil
        }
        if candidate != target {
            candidate = target
            candidateSince = t
        }
        guard t - candidateSince >= dwell else { return nil }
        zone = target
        candidate = nil
        return target
    }

    /// Forgets the zone (a new session).
    public mutating func reset() {
        self = HeartRateZoneTracker(floors: floors)
    }

    private func plainZone(_ bpm: Double) -> Int {
        var z = 1
        for f in floors where bpm >= f { z += 1 }
        return min(z, 5)
    }
}
