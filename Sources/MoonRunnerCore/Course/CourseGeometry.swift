import Glibc

/// Where a position falls on a course: the nearest point of one segment.
public struct CourseProjection: Sendable, Equatable {
    /// Index of the segment (from vertex `segment` to `segment + 1`).
    public var segment: Int
    /// Metres from the start of the course along it.
    public var progress: Double
    /// Metres from the position to that point of the course.
    public var distance: Double
    /// The point on the course, in the geometry's plane (metres east, north).
    public var east: Double
    public var north: Double
}

/// A course ready for matching: its vertices in a local east/north plane,
/// the distance along the course at every vertex, and a grid of segments so
/// that the segments near a position are found without walking the course.
///
/// Distances along the course are great-circle lengths (as a planner and
/// `course show` measure them); the plane is only used to find the nearest
/// point of a segment and how far along it lies. Centred on the course, its
/// scale error stays below 0.1 % over a 50 km course.
public struct CourseGeometry: Sendable {
    public let plane: LocalTangentPlane
    /// Vertex positions, metres east and north of the plane's origin.
    public let east: [Double]
    public let north: [Double]
    /// Metres along the course at each vertex; `cumulative[0] == 0`.
    public let cumulative: [Double]
    public let summary: CourseSummary
    let grid: SegmentGrid

    /// Consecutive vertices closer than this are one vertex, metres.
    public static let duplicateVertex = 0.05
    /// Courses longer than this are refused, metres (a 1000 km ultra is plenty).
    public static let maximumLength = 1_000_000.0

    /// Builds the geometry; refuses what cannot be followed: fewer than two
    /// distinct points, coordinates that are not on Earth, 0,0 vertices
    /// (a converter's placeholder), or a course of absurd extent.
    public init(_ points: [CoursePoint]) throws(CourseError) {
        var kept: [CoursePoint] = []
        kept.reserveCapacity(points.count)
        for (i, p) in points.enumerated() {
            guard GeoPoint(latitude: p.latitude, longitude: p.longitude).isValid else {
                throw CourseError("point \(i + 1) has no valid position (\(p.latitude), \(p.longitude))")
            }
            if abs(p.latitude) < 1e-6 && abs(p.longitude) < 1e-6 {
                throw CourseError("point \(i + 1) is at 0,0 (a placeholder, not a position)")
            }
            if let last = kept.last,
               Geodesy.distance(lat1: last.latitude, lon1: last.longitude, lat2: p.latitude, lon2: p.longitude)
                < Self.duplicateVertex {
                continue
            }
            kept.append(p)
        }
        guard kept.count >= 2 else {
            throw CourseError(points.isEmpty ? "the file holds no track or route points"
                : "a course needs at least two distinct points; the file has \(kept.count)")
        }
        let summary = CourseSummary(kept)
        guard summary.length <= Self.maximumLength else {
            throw CourseError("the course is \(Int(summary.length / 1000)) km long; at most \(Int(Self.maximumLength / 1000)) km are followed")
        }
        plane = LocalTangentPlane(originLat: (summary.minLatitude + summary.maxLatitude) / 2,
                                  originLon: (summary.minLongitude + summary.maxLongitude) / 2)
        var e = [Double](), n = [Double](), c = [Double]()
        e.reserveCapacity(kept.count)
        n.reserveCapacity(kept.count)
        c.reserveCapacity(kept.count)
        for (i, p) in kept.enumerated() {
            let xy = plane.project(lat: p.latitude, lon: p.longitude)
            e.append(xy.east)
            n.append(xy.north)
            if i == 0 {
                c.append(0)
            } else {
                let q = kept[i - 1]
                c.append(c[i - 1] + Geodesy.distance(lat1: q.latitude, lon1: q.longitude, lat2: p.latitude, lon2: p.longitude))
            }
        }
        east = e
        north = n
        cumulative = c
        self.summary = summary
        grid = SegmentGrid(east: e, north: n)
    }

    /// Metres from start to finish along the course.
    public var length: Double { cumulative[cumulative.count - 1] }
    public var segmentCount: Int { east.count - 1 }

    /// A position in the plane.
    @inlinable
    public func project(latitude: Double, longitude: Double) -> (east: Double, north: Double) {
        plane.project(lat: latitude, lon: longitude)
    }

    /// The course's point at `progress` metres (clamped to the course), in degrees.
    public func position(atProgress progress: Double) -> GeoPoint {
        let s = min(max(progress, 0), length)
        let i = min(segment(containing: s), segmentCount - 1)
        let span = cumulative[i + 1] - cumulative[i]
        let f = span > 0 ? (s - cumulative[i]) / span : 0
        let ll = plane.unproject(east: east[i] + f * (east[i + 1] - east[i]), north: north[i] + f * (north[i + 1] - north[i]))
        return GeoPoint(latitude: ll.lat, longitude: ll.lon)
    }

    /// Index of the segment whose progress range holds `s` (binary search).
    func segment(containing s: Double) -> Int {
        var lo = 0, hi = cumulative.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if cumulative[mid] <= s { lo = mid } else { hi = mid }
        }
        return lo
    }

    /// The nearest point of segment `i` to (x, y), kept within the progress
    /// range `lower...upper` (a window may cut a segment).
    @inline(__always)
    func project(_ x: Double, _ y: Double, onSegment i: Int, lower: Double, upper: Double) -> CourseProjection {
        let ax = east[i], ay = north[i]
        let dx = east[i + 1] - ax, dy = north[i + 1] - ay
        let c0 = cumulative[i], span = cumulative[i + 1] - c0
        let len2 = dx * dx + dy * dy
        var f = len2 > 0 ? ((x - ax) * dx + (y - ay) * dy) / len2 : 0
        var fLo = 0.0, fHi = 1.0
        if span > 0 {
            fLo = max(0, (lower - c0) / span)
            fHi = min(1, (upper - c0) / span)
        }
        f = min(max(f, fLo), max(fLo, fHi))
        let px = ax + f * dx, py = ay + f * dy
        let ex = x - px, ey = y - py
        return CourseProjection(segment: i, progress: c0 + f * span, distance: (ex * ex + ey * ey).squareRoot(),
                                east: px, north: py)
    }

    /// Direction of segment `i` as a bearing, degrees [0, 360).
    public func bearing(ofSegment i: Int) -> Double {
        let b = atan2(east[i + 1] - east[i], north[i + 1] - north[i]) * 180 / .pi
        return b < 0 ? b + 360 : b
    }

    /// Segment indices whose progress overlaps `lower...upper`.
    func segments(from lower: Double, to upper: Double) -> ClosedRange<Int> {
        let lo = segment(containing: max(0, lower))
        let hi = segment(containing: min(length, upper))
        return min(lo, segmentCount - 1)...min(max(lo, hi), segmentCount - 1)
    }

    /// The nearest point of the course to (x, y) among the progress range
    /// `lower...upper`. Short ranges are walked; long ones are searched ring
    /// by ring in the grid, so a 50 km course costs what a few cells hold.
    public func nearest(east x: Double, north y: Double, from lower: Double, to upper: Double) -> CourseProjection {
        let range = segments(from: lower, to: upper)
        if range.count <= Self.walkLimit {
            return walkNearest(x, y, range, lower: lower, upper: upper)
        }
        return grid.nearest(x, y, range: range) { i in project(x, y, onSegment: i, lower: lower, upper: upper) }
            ?? walkNearest(x, y, range, lower: lower, upper: upper)
    }

    /// Ranges of at most this many segments are walked rather than searched
    /// in the grid: a following window (a few segments) always is. On the
    /// 50 km course bench, 8, 48 and 200 cost 1.05, 1.03 and 1.5 µs per fix:
    /// walking 48 segments costs what visiting the grid's cells does.
    static let walkLimit = 48

    private func walkNearest(_ x: Double, _ y: Double, _ range: ClosedRange<Int>, lower: Double,
                             upper: Double) -> CourseProjection {
        var best = project(x, y, onSegment: range.lowerBound, lower: lower, upper: upper)
        for i in range.dropFirst() {
            let p = project(x, y, onSegment: i, lower: lower, upper: upper)
            if p.distance < best.distance { best = p }
        }
        return best
    }

    /// The passes of the course by (x, y) within `radius` metres in the range
    /// `lower...upper`: each maximal run of consecutive segments within the
    /// radius that goes one way is one pass (a lap, a leg, a crossing),
    /// reported by its nearest point, in order of progress. A run that turns
    /// back (a segment more than 90° from the run's first) starts a new pass
    /// there: both legs of an out-and-back are near its turn, and the nearest
    /// point of the two together can lie on the leg already run. `scratch` is
    /// the caller's buffer, reused so that matching a fix allocates nothing.
    public func passes(east x: Double, north y: Double, within radius: Double, from lower: Double, to upper: Double,
                       scratch: inout [Int32], into out: inout [CourseProjection]) {
        out.removeAll(keepingCapacity: true)
        scratch.removeAll(keepingCapacity: true)
        let range = segments(from: lower, to: upper)
        if range.count <= Self.walkLimit {
            for i in range where project(x, y, onSegment: i, lower: lower, upper: upper).distance <= radius {
                scratch.append(Int32(i))
            }
        } else {
            grid.collect(x, y, radius: radius, range: range, into: &scratch)
            var kept = 0
            for k in scratch.indices {
                let i = Int(scratch[k])
                if project(x, y, onSegment: i, lower: lower, upper: upper).distance <= radius {
                    scratch[kept] = scratch[k]
                    kept += 1
                }
            }
            scratch.removeLast(scratch.count - kept)
            Self.sortUnique(&scratch)
        }
        var k = 0
        while k < scratch.count {
            let first = Int(scratch[k])
            var best = project(x, y, onSegment: first, lower: lower, upper: upper)
            var j = k + 1
            while j < scratch.count, scratch[j] == scratch[j - 1] + 1, sameWay(first, Int(scratch[j])) {
                let p = project(x, y, onSegment: Int(scratch[j]), lower: lower, upper: upper)
                if p.distance < best.distance { best = p }
                j += 1
            }
            out.append(best)
            k = j
        }
    }

    /// True when segments `i` and `j` head within 90° of each other: one
    /// moves along the other rather than against it (a bend of a track keeps
    /// going one way until it has turned back by more than a right angle).
    @inline(__always)
    func sameWay(_ i: Int, _ j: Int) -> Bool {
        (east[i + 1] - east[i]) * (east[j + 1] - east[j]) + (north[i + 1] - north[i]) * (north[j + 1] - north[j]) >= 0
    }

    /// Sorts and removes repeats in place (insertion sort: the lists are
    /// short and mostly sorted already, as the grid's cells keep order).
    static func sortUnique(_ a: inout [Int32]) {
        guard a.count > 1 else { return }
        for i in 1..<a.count {
            let v = a[i]
            var j = i - 1
            while j >= 0, a[j] > v {
                a[j + 1] = a[j]
                j -= 1
            }
            a[j + 1] = v
        }
        var w = 1
        for i in 1..<a.count where a[i] != a[w - 1] {
            a[w] = a[i]
            w += 1
        }
        a.removeLast(a.count - w)
    }
}
