/// Colours a route by speed as the seed app does (red slow, yellow middling,
/// green fast), but relative to a robust speed range of the session itself:
/// the seed's min/max made one GPS spike turn the whole route red, so the
/// range here runs from a low to a high percentile (5th–95th by default).
public struct SpeedColourScale: Sendable, Equatable, Codable {
    /// Speed (m/s) drawn fully red.
    public var slow: Double
    /// Speed (m/s) drawn fully green.
    public var fast: Double

    public init(slow: Double, fast: Double) {
        self.slow = slow
        self.fast = fast
    }

    /// The range from percentiles of `speeds` (non-finite values ignored).
    public init(speeds: [Double], lowerPercentile: Double = 0.05, upperPercentile: Double = 0.95) {
        let sorted = speeds.filter(\.isFinite).sorted()
        self.init(slow: SpeedColourScale.percentile(sorted, lowerPercentile),
                  fast: SpeedColourScale.percentile(sorted, upperPercentile))
    }

    /// 0 at `slow`, 1 at `fast`, clamped; 0.5 when the range is empty (all one speed).
    public func fraction(for speed: Double) -> Double {
        guard speed.isFinite else { return 0 }
        guard fast - slow > 1e-6 else { return 0.5 }
        return min(1, max(0, (speed - slow) / (fast - slow)))
    }

    public func colour(for speed: Double) -> RGBColour {
        SpeedColourScale.colour(fraction: fraction(for: speed))
    }

    /// Red → yellow over the lower half, yellow → green over the upper half.
    public static func colour(fraction f: Double) -> RGBColour {
        f < 0.5 ? .mix(.slow, .middle, f * 2) : .mix(.middle, .fast, (f - 0.5) * 2)
    }

    /// Linear-interpolated percentile `p` (0...1) of ascending `sorted`; 0 when empty.
    public static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard let first = sorted.first else { return 0 }
        guard sorted.count > 1 else { return first }
        let x = min(1, max(0, p)) * Double(sorted.count - 1)
        let i = Int(x.rounded(.down))
        guard i + 1 < sorted.count else { return sorted[sorted.count - 1] }
        return sorted[i] + (x - Double(i)) * (sorted[i + 1] - sorted[i])
    }

    /// Speed of each segment of a track, m/s: element `i` is the segment
    /// ending at point `i`; NaN for the first point and where a stretch
    /// begins (no segment is drawn there). Uses the filter's speeds at both
    /// ends when known, else distance over time.
    public static func segmentSpeeds(of points: [TrackPoint]) -> [Double] {
        var speeds = [Double](repeating: .nan, count: points.count)
        for i in points.indices.dropFirst() where !points[i].newSegment {
            let a = points[i - 1], b = points[i]
            if a.speed.isFinite && b.speed.isFinite {
                speeds[i] = (a.speed + b.speed) / 2
            } else if b.time > a.time {
                speeds[i] = TrackDistance.step(a, b) / (b.time - a.time)
            }
        }
        return speeds
    }
}
