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
}
