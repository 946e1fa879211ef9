/// Distance along a recorded track, counted only inside moving stretches:
/// a point flagged `newSegment` starts a new stretch and no distance is
/// counted from the point before it (that gap is a pause or a GPS outage).
/// Points that carry the session's distance (`TrackPoint.distance`, every
/// point recorded since it is kept) are taken at their word, so splits, laps
/// and exports add up to exactly the distance the wearer saw; older tracks
/// are measured point to point.
///
/// Built once per track (one array), then answers "how far by time t" and
/// "what altitude at time t" by binary search, so laps and splits of a
/// 10-hour session stay cheap.
public struct TrackDistance: Sendable {
    /// Metres covered up to and including each point.
    public let cumulative: [Double]
    private let times: [Double]
    private let altitudes: [Double]
    private let breaks: [Bool]

    public init(points: [TrackPoint]) {
        var cumulative = [Double]()
        cumulative.reserveCapacity(points.count)
        if !points.isEmpty, points.allSatisfy({ $0.distance.isFinite }) {
            cumulative = points.map(\.distance)
        } else {
            var total = 0.0
            for i in points.indices {
                if i > 0, !points[i].newSegment {
                    total += TrackDistance.step(points[i - 1], points[i])
                }
                cumulative.append(total)
            }
        }
        self.cumulative = cumulative
        times = points.map(\.time)
        altitudes = points.map(\.altitude)
        breaks = points.indices.map { $0 == 0 || points[$0].newSegment }
    }

    /// Total metres along the track.
    public var total: Double { cumulative.last ?? 0 }
    public var count: Int { cumulative.count }

    /// Horizontal metres between two consecutive points (great circle).
    @inlinable
    public static func step(_ a: TrackPoint, _ b: TrackPoint) -> Double {
        Geodesy.distance(lat1: a.latitude, lon1: a.longitude, lat2: b.latitude, lon2: b.longitude)
    }

    /// Metres a point adds to the track after the one before it, as this
    /// table counts them: the session's own count when both points carry it,
    /// else the great circle inside a stretch and nothing across a break.
    /// `SplitTracker` counts with it, so live splits and `show`'s agree.
    @inlinable
    public static func increment(from a: TrackPoint, to b: TrackPoint) -> Double {
        if a.distance.isFinite && b.distance.isFinite { return b.distance - a.distance }
        return b.newSegment ? 0 : step(a, b)
    }

    /// True when point `i` begins a stretch (no line from the point before).
    public func startsStretch(_ i: Int) -> Bool { breaks[i] }

    /// Index of the last point at or before `t`, or nil when `t` precedes the track.
    public func index(atOrBefore t: Double) -> Int? {
        var lo = 0, hi = times.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if times[mid] <= t { lo = mid + 1 } else { hi = mid }
        }
        return lo == 0 ? nil : lo - 1
    }

    /// Metres covered by instant `t`: linear between two points of one
    /// stretch, flat across a break.
    public func distance(at t: Double) -> Double {
        guard let i = index(atOrBefore: t) else { return 0 }
        let j = i + 1
        guard j < times.count, !breaks[j], times[j] > times[i] else { return cumulative[i] }
        let f = (t - times[i]) / (times[j] - times[i])
        return cumulative[i] + f * (cumulative[j] - cumulative[i])
    }

    /// Altitude at instant `t` (metres, NaN when unknown), interpolated within a stretch.
    public func altitude(at t: Double) -> Double {
        guard let i = index(atOrBefore: t) else { return firstAltitude }
        let j = i + 1
        guard j < times.count, !breaks[j], times[j] > times[i] else { return altitudes[i] }
        return TrackDistance.mix(altitudes[i], altitudes[j], (t - times[i]) / (times[j] - times[i]))
    }

    /// First known altitude of the track, NaN when none.
    public var firstAltitude: Double { altitudes.first(where: \.isFinite) ?? .nan }

    /// Linear mix that falls back to whichever end is known.
    static func mix(_ a: Double, _ b: Double, _ f: Double) -> Double {
        if a.isFinite && b.isFinite { return a + f * (b - a) }
        return a.isFinite ? a : b
    }
}
