import Foundation
import MoonRunnerCore

/// The shape of course a cue scenario is drawn on.
public enum CueFamily: String, CaseIterable, Sendable, Codable {
    /// One turn of `angle` degrees between two 300 m straights.
    case turn
    /// Two 90° turns `gap` metres apart, the same way or the other way.
    case pair
    /// A bend of `radius` metres turning `angle` degrees: no turn at all.
    case curve
    /// Three laps of a 300 m × 150 m block, four left turns a lap.
    case laps
    /// Out along a street, a left, a U-turn to the street's other side 8 m
    /// away, back, and a right: the two legs' corners lie 11 m apart.
    case outAndBack = "out_and_back"
}

/// One course drawn by parameter and a runner following it exactly at a
/// steady speed with GPS noise, and the cues it must give: where, of which
/// kind, once each, 10–40 s ahead.
public struct CueScenario: Sendable, Hashable, Codable, CustomStringConvertible {
    public typealias Point = RejoinScenario.Point

    public var family: CueFamily
    /// turn: the turn's angle; curve: the bend's sweep; degrees (positive: right).
    public var angle: Double
    /// pair: metres between the two turns.
    public var gap: Double
    /// pair: both turns left (else left, then right).
    public var sameWay: Bool
    /// curve: the bend's radius, metres.
    public var radius: Double
    /// 1σ of the GPS error per axis, metres.
    public var noise: Double
    /// m/s.
    public var speed: Double
    public var seed: UInt64

    public init(family: CueFamily, angle: Double = 0, gap: Double = 0, sameWay: Bool = false, radius: Double = 0,
                noise: Double, speed: Double, seed: UInt64 = 1) {
        self.family = family
        self.angle = angle
        self.gap = gap
        self.sameWay = sameWay
        self.radius = radius
        self.noise = noise
        self.speed = speed
        self.seed = seed
    }

    public var name: String {
        let shape: String = switch family {
        case .turn: "turn-a\(Int(angle))"
        case .pair: "pair-\(sameWay ? "same" : "other")-g\(Int(gap))"
        case .curve: "curve-r\(Int(radius))-a\(Int(angle))"
        case .laps: "laps"
        case .outAndBack: "out_and_back"
        }
        return "\(shape)-n\(Self.short(noise))-v\(Self.short(speed))"
    }

    public var description: String { name }

    private static func short(_ x: Double) -> String {
        x == x.rounded() ? String(Int(x)) : String(format: "%g", x)
    }

    /// The issue's parameters: turns of 20–180° (clear of the word bands'
    /// edges: 40°, 60°, 120° and 170° are each a coin toss of the drawing),
    /// either way; two turns 10–60 m apart; bends of 30–200 m radius turning
    /// 90° and 180°; laps and an out-and-back; 3, 6 and 10 m of noise; a
    /// walker (1.4 m/s) and a runner (3.2 m/s).
    public static let angles = [20.0, 30, -50, 75, -90, 105, -135, 150, -175, 180]
    public static let gaps = [10.0, 20, 25, 40, 60]
    public static let radii = [30.0, 50, 100, 200]
    public static let sweeps = [90.0, -180]
    public static let noises = [3.0, 6, 10]
    public static let speeds = [1.4, 3.2]

    /// Every combination, each with its own seed.
    public static func grid(_ families: [CueFamily] = CueFamily.allCases, noises: [Double] = noises,
                            speeds: [Double] = speeds) -> [CueScenario] {
        var shapes: [CueScenario] = []
        for f in families {
            switch f {
            case .turn: shapes += angles.map { CueScenario(family: .turn, angle: $0, noise: 0, speed: 0) }
            case .pair:
                for same in [false, true] {
                    // The same way, 25 m apart is neither one turn nor two (see `expected`).
                    for g in gaps where !(same && g == 25) {
                        shapes.append(CueScenario(family: .pair, gap: g, sameWay: same, noise: 0, speed: 0))
                    }
                }
            case .curve:
                for r in radii {
                    for a in sweeps { shapes.append(CueScenario(family: .curve, angle: a, radius: r, noise: 0, speed: 0)) }
                }
            case .laps, .outAndBack: shapes.append(CueScenario(family: f, noise: 0, speed: 0))
            }
        }
        var out: [CueScenario] = []
        for s in shapes {
            for n in noises {
                for v in speeds {
                    var c = s
                    c.noise = n
                    c.speed = v
                    c.seed = UInt64(out.count + 1)
                    out.append(c)
                }
            }
        }
        return out
    }

    // MARK: The course and its truth

    /// Metres of straight before the first turn and after the last.
    public static let straight = 300.0

    /// The course's corners in metres east and north, in the order it is run.
    public var corners: [Point] {
        switch family {
        case .turn:
            return [Point(0, 0), Point(Self.straight, 0)] + [Self.heading(-angle, Self.straight, from: Point(Self.straight, 0))]
        case .pair:
            let second = sameWay ? -180.0 : 0
            let a = Point(Self.straight, 0), b = Point(Self.straight, gap)
            return [Point(0, 0), a, b, Self.heading(-second, Self.straight, from: b)]
        case .curve:
            var pts = [Point(0, 0), Point(Self.straight, 0)]
            let steps = max(4, Int(abs(angle) / 5))
            // The centre is on the side the bend turns to; the arc is drawn every few degrees, as a planner would.
            let side = angle > 0 ? -1.0 : 1.0
            let centre = Point(Self.straight, side * radius)
            for k in 1...steps {
                let phi = Double(k) / Double(steps) * abs(angle) * .pi / 180
                pts.append(Point(centre.x + radius * sin(phi), centre.y - side * radius * cos(phi)))
            }
            let end = pts[pts.count - 1]
            pts.append(Self.heading(-angle, Self.straight, from: end))
            return pts
        case .laps:
            let lap = [Point(300, 0), Point(300, 150), Point(0, 150), Point(0, 0), Point(150, 0)]
            return [Point(150, 0)] + lap + lap + lap
        case .outAndBack:
            return [Point(0, 0), Point(300, 0), Point(300, 200), Point(308, 200), Point(308, -8), Point(0, -8)]
        }
    }

    /// The point `length` metres from `from` in the direction `degrees`
    /// anticlockwise from east (so that a right turn of a is −a).
    static func heading(_ degrees: Double, _ length: Double, from p: Point) -> Point {
        let a = degrees * .pi / 180
        return Point(p.x + length * cos(a), p.y + length * sin(a))
    }

    /// A cue the course must give.
    public struct Expected: Sendable, Equatable, Codable {
        public var courseM: Double
        public var kind: CueKind
        public var then: [CueKind]
    }

    /// The cues by the issue's rule, from the shape as drawn: a turn of 40°
    /// or more is one cue of its word; turns closer than 30 m are one cue
    /// (the other way: "left, then right"; the same way they are one turn
    /// of their sum, a U-turn, since within the 20 m windows they are one
    /// bend); bends of 30 m radius or more are none.
    public var expected: [Expected] {
        let s = Self.straight
        switch family {
        case .turn:
            return abs(angle) < TurnFinder.minimumAngle ? [] : [Expected(courseM: s, kind: CueKind.turn(degrees: angle), then: [])]
        case .pair:
            if sameWay {
                if gap < TurnFinder.joinDistance { return [Expected(courseM: s + gap / 2, kind: .uTurn, then: [])] }
                return [Expected(courseM: s, kind: .left, then: []), Expected(courseM: s + gap, kind: .left, then: [])]
            }
            if gap < TurnFinder.joinDistance { return [Expected(courseM: s, kind: .left, then: [.right])] }
            return [Expected(courseM: s, kind: .left, then: []), Expected(courseM: s + gap, kind: .right, then: [])]
        case .curve:
            return []
        case .laps:
            let lap = 900.0
            var out: [Expected] = []
            for n in 0..<3 {
                for corner in [150.0, 300, 600, 750] { out.append(Expected(courseM: Double(n) * lap + corner, kind: .left, then: [])) }
            }
            return out
        case .outAndBack:
            return [Expected(courseM: 300, kind: .left, then: []), Expected(courseM: 504, kind: .uTurn, then: []),
                    Expected(courseM: 716, kind: .right, then: [])]
        }
    }
}
