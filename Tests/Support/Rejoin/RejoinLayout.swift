import Foundation
import MoonRunnerCore

/// A scenario laid out on its family's course: the course's corners and the
/// runner's whole path, in metres east and north of `RejoinScenario.plane`.
public struct RejoinLayout: Sendable {
    public typealias Point = RejoinScenario.Point

    /// The course's corners, in the order it is run.
    public let corners: [Point]
    /// The runner: on the course from `start` to the point where they part (A),
    /// their own path to where they meet it again (B), then on the course for `tail` metres.
    public let ownPath: [Point]
    public let a: Point
    public let b: Point
    /// The course's direction at B (a unit vector): the way the runner goes on.
    public let ahead: Point
    /// Index of the corner at A and at B in `corners` (the passes of A and B the runner takes).
    public let aCorner: Int
    public let bCorner: Int
    public let tail: Double
    public let divergence: RejoinScenario.Divergence

    /// Metres the runner runs off the course, from A to B.
    public var ownLength: Double { Polyline(ownPath).length }

    /// Metres the runner stays on the course after rejoining it.
    public static let tailLength = 350.0
    /// Metres of course before the point where they part (time to settle on it).
    public static let lead = 450.0
    /// Out and back: the two legs are this far apart (the two sides of a street).
    public static let legGap = 8.0

    public init(_ s: RejoinScenario) {
        if s.family == .crossing {
            self = Self.crossing(s)
            return
        }
        let dv = s.divergence
        let d = dv.length
        tail = Self.tailLength
        divergence = dv
        /// (u, v) of the divergence to (east, north): origin A, u along `dir`, v to `side` × its left.
        func place(_ ps: [Point], at origin: Point, dir: Point, side: Double) -> [Point] {
            ps.map { p in
                let left = Point(-dir.y, dir.x)
                return Point(origin.x + p.x * dir.x + side * p.y * left.x, origin.y + p.x * dir.y + side * p.y * left.y)
            }
        }
        var corners: [Point] = []
        var aCorner = 0, bCorner = 0
        let east = Point(1, 0)
        switch s.family {
        case .street:
            let origin = Point(0, 0)
            let block = place(dv.course, at: origin, dir: east, side: 1)
            corners = [Point(-Self.lead, 0)]
            aCorner = corners.count
            corners += block
            bCorner = corners.count - 1
            corners.append(Point(d + Self.tailLength + 100, 0))
            ownPath = place(dv.runner, at: origin, dir: east, side: 1)
            ahead = east
        case .laps:
            // A loop: the bottom straight heads east through A…B; the runner's
            // path bulges inside the loop (north), the course's block outside.
            let west = -Self.lead, eastEnd = d + Self.tailLength + 50
            let width = max(240, dv.height + 150)
            let r = width / 2
            func arc(centre: Point, from a0: Double) -> [Point] {
                (1..<16).map { k in
                    let a = a0 + Double(k) * Double.pi / 16
                    return Point(centre.x + r * cos(a), centre.y + r * sin(a))
                }
            }
            let block = place(dv.course, at: Point(0, 0), dir: east, side: 1)
            var lap: [Point] = [Point(west, 0)] + block + [Point(eastEnd, 0)]
            lap += arc(centre: Point(eastEnd, r), from: -Double.pi / 2) + [Point(eastEnd, width), Point(west, width)]
            lap += arc(centre: Point(west, r), from: Double.pi / 2)
            for n in 0..<3 {
                if n == 1 {
                    aCorner = corners.count + 1
                    bCorner = corners.count + block.count
                }
                corners += lap
            }
            corners.append(Point(west, 0))
            ownPath = place(dv.runner, at: Point(0, 0), dir: east, side: 1)
            ahead = east
        case .crossing:
            preconditionFailure("the crossing family is laid out by crossing(_:)")
        case .outAndBack:
            // Out east along y = 0, back west along y = −8; the runner's own
            // path bulges across the other leg, the course's block away from it.
            let far = Self.lead + d + Self.tailLength + 100
            let west = Point(-1, 0)
            if s.backLeg {
                let origin = Point(far - Self.tailLength - 100, -Self.legGap)
                let block = place(dv.course, at: origin, dir: west, side: -1)
                corners = [Point(0, 0), Point(far, 0), Point(far, -Self.legGap)]
                aCorner = corners.count
                corners += block
                bCorner = corners.count - 1
                corners.append(Point(0, -Self.legGap))
                ownPath = place(dv.runner, at: origin, dir: west, side: -1)
                ahead = west
            } else {
                let origin = Point(Self.lead, 0)
                let block = place(dv.course, at: origin, dir: east, side: -1)
                corners = [Point(0, 0)]
                aCorner = corners.count
                corners += block
                bCorner = corners.count - 1
                corners += [Point(far, 0), Point(far, -Self.legGap), Point(0, -Self.legGap)]
                ownPath = place(dv.runner, at: origin, dir: east, side: -1)
                ahead = east
            }
        }
        self.corners = corners
        self.aCorner = aCorner
        self.bCorner = bCorner
        a = corners[aCorner]
        b = corners[bCorner]
    }

    private init(corners: [Point], ownPath: [Point], aCorner: Int, bCorner: Int, ahead: Point) {
        self.corners = corners
        self.ownPath = ownPath
        self.aCorner = aCorner
        self.bCorner = bCorner
        a = corners[aCorner]
        b = corners[bCorner]
        self.ahead = ahead
        tail = Self.tailLength
        divergence = RejoinScenario.Divergence(length: 0, height: 0, depth: 0, departure: 0, runner: [], course: [])
    }

    /// Metres up the street from A where the loop's far side crosses it, and
    /// how far past it the runner goes before turning back.
    public static let crossingAt = 250.0
    public static let overshoot = 20.0
    /// Half the far side's length, and how far the loop's other sides keep
    /// from the street, metres (beyond the band by 2.5σ of the largest noise).
    static let farSide = 150.0
    static let loopWidth = 150.0

    /// The crossing family: up a street (north) to A, a loop to the west,
    /// its far side crossing the street diagonally at `returnAngle` degrees
    /// 250 m up it, back east and down to the street's other side 8 m east
    /// of A (B), and down that side. The runner goes on up the street, 20 m
    /// past the far side, turns and comes back down to B.
    private static func crossing(_ s: RejoinScenario) -> RejoinLayout {
        let alpha = s.returnAngle * .pi / 180
        let dir = Point(sin(alpha), cos(alpha))
        let c = Point(0, crossingAt)
        let e1 = Point(c.x - farSide * dir.x, c.y - farSide * dir.y)
        let e2 = Point(c.x + farSide * dir.x, c.y + farSide * dir.y)
        let w = loopWidth
        var corners = [Point(0, -lead), Point(0, 0), Point(-w, 0), Point(-w, e1.y), e1, e2, Point(w, e2.y),
                       Point(w, 0), Point(legGap, 0), Point(legGap, -lead)]
        // A square crossing puts the far side's ends on the loop's sides: one corner each, not two.
        var deduped: [Point] = []
        for p in corners where deduped.last.map({ hypot($0.x - p.x, $0.y - p.y) > 0.5 }) ?? true { deduped.append(p) }
        corners = deduped
        let own = [Point(0, 0), Point(0, crossingAt + overshoot), Point(0, 10), Point(legGap, 0)]
        return RejoinLayout(corners: corners, ownPath: own, aCorner: 1, bCorner: corners.count - 2, ahead: Point(0, -1))
    }
}
