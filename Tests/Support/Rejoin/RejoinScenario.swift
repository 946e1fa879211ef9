import Foundation
import MoonRunnerCore

/// The shape of course a detour or shortcut is tried on.
public enum RejoinFamily: String, CaseIterable, Sendable, Codable {
    /// Point to point along a straight street.
    case street
    /// Three laps of a loop; the runner parts from the course on lap 2, so
    /// lap 1 lies behind and lap 3 ahead in the very same place.
    case laps
    /// Out along a street and back on its other side, 8 m apart; the runner
    /// parts from one leg, and their own path crosses the other leg twice.
    case outAndBack = "out_and_back"
    /// The course leaves a street for a loop and comes back to it; the
    /// runner skips the loop by going straight on up the street, through the
    /// loop's far side (crossed at `returnAngle`, 30° to 90°: diagonally),
    /// and back (as the recorded `b_urban_detour` walk has it): near the course
    /// there for a minute or more, off it before and after.
    case crossing

    /// The families gridded by ratio and return angle (882 runs); the crossing
    /// has its own angles.
    public static let detours: [RejoinFamily] = [.street, .laps, .outAndBack]
}

/// One detour or shortcut, by parameter.
///
/// On a straight stretch of the family's course, in a frame along it (u
/// ahead, v towards the runner's side), the course and the runner part at
/// A = (0, 0) and meet again at B = (D, 0). The runner's own path leaves A at
/// `departure` degrees from the course's direction, runs at `height` metres
/// out and comes back into B at `returnAngle` degrees: the turn they make
/// there onto the course (20°: merging; 90°: from a side street; 160°:
/// doubling back after running past, beside the course). The course between
/// A and B is a block on the other side, `depth` metres deep (0: the street
/// itself). Over A…B the course is `ratio` times as long as the runner's path.
public struct RejoinScenario: Sendable, Hashable, Codable, CustomStringConvertible {
    public var family: RejoinFamily
    /// Course : runner, over the stretch where they part.
    public var ratio: Double
    /// Degrees between the runner's direction as they come back and the course's there.
    public var returnAngle: Double
    /// 1σ of the GPS error per axis, metres (a wander correlated over 40 s plus white noise).
    public var noise: Double
    /// The runner's speed, m/s.
    public var speed: Double
    /// Out and back only: the runner parts from the way back (else the way out).
    public var backLeg: Bool
    public var seed: UInt64

    public init(family: RejoinFamily, ratio: Double, returnAngle: Double, noise: Double, speed: Double,
                backLeg: Bool = false, seed: UInt64 = 1) {
        self.family = family
        self.ratio = ratio
        self.returnAngle = returnAngle
        self.noise = noise
        self.speed = speed
        self.backLeg = backLeg
        self.seed = seed
    }

    public var name: String {
        if family == .crossing { return "crossing-a\(Int(returnAngle))-n\(Self.short(noise))-v\(Self.short(speed))" }
        let leg = family == .outAndBack ? (backLeg ? "-back" : "-out") : ""
        return "\(family.rawValue)\(leg)-r\(Self.short(ratio))-a\(Int(returnAngle))-n\(Self.short(noise))-v\(Self.short(speed))"
    }

    public var description: String { name }

    private static func short(_ x: Double) -> String {
        x == x.rounded() ? String(Int(x)) : String(format: "%g", x)
    }

    /// The ratios, angles, noises and speeds the issue asks for: ratio 0.5 to
    /// 5, return 20° to 160°, 3 to 10 m of noise; a walker (1.4 m/s) and a
    /// runner (3.2 m/s). Out-and-back alternates the leg it parts from. The
    /// angles keep 15° from 45°, where moving along the course ends and
    /// moving across it begins (the truth's `back`): at 45° itself the truth
    /// is a coin toss of the heading's noise.
    public static let ratios = [0.5, 0.75, 1, 1.5, 2.5, 3.5, 5]
    public static let angles = [20.0, 30, 60, 90, 120, 150, 160]
    public static let noises = [3.0, 6, 10]
    public static let speeds = [1.4, 3.2]

    /// The angles the crossing family's runner crosses the loop's far side at:
    /// diagonally (30°, within the 45° of following it, to 60°) and square on.
    public static let crossingAngles = [30.0, 45, 60, 90]

    /// Every combination for `families` (the detours by default), each with its own seed.
    public static func grid(_ families: [RejoinFamily] = RejoinFamily.detours, ratios: [Double] = ratios,
                            angles: [Double] = angles, noises: [Double] = noises,
                            speeds: [Double] = speeds) -> [RejoinScenario] {
        var out: [RejoinScenario] = []
        for family in families where family != .crossing {
            for (i, ratio) in ratios.enumerated() {
                for (j, angle) in angles.enumerated() {
                    for noise in noises {
                        for speed in speeds {
                            out.append(RejoinScenario(family: family, ratio: ratio, returnAngle: angle, noise: noise,
                                                      speed: speed, backLeg: (i + j) % 2 == 1,
                                                      seed: UInt64(out.count + 1)))
                        }
                    }
                }
            }
        }
        // Seeded apart from the detours, so that each keeps its noise whichever families are asked for.
        var crossings = 0
        for family in families where family == .crossing {
            for angle in crossingAngles {
                for noise in noises {
                    for speed in speeds {
                        crossings += 1
                        out.append(RejoinScenario(family: .crossing, ratio: 1, returnAngle: angle, noise: noise,
                                                  speed: speed, seed: UInt64(10_000 + crossings)))
                    }
                }
            }
        }
        return out
    }

    // MARK: Where they part

    /// The runner's own path and the course's block between A and B.
    public struct Divergence: Sendable, Equatable {
        public var length: Double
        public var height: Double
        public var depth: Double
        public var departure: Double
        /// The runner's path from A to B and the course's, in the (u, v) frame.
        public var runner: [Point]
        public var course: [Point]
    }

    /// A point in metres (east, north), or (u, v) in a divergence's frame.
    public struct Point: Sendable, Equatable, Codable {
        public var x: Double
        public var y: Double
        public init(_ x: Double, _ y: Double) {
            self.x = x
            self.y = y
        }
    }

    /// The runner's path is never nearer the course than this outside A and B,
    /// metres: beyond the on-course band with its widest margin (50 + 15 m)
    /// by 2.5σ of the largest noise, so that they are off course for sure.
    public static let minimumHeight = 90.0
    /// Runner and course are this far apart at the widest, metres: off course
    /// by the threshold and more, as the shared detour (a street 120 m away).
    public static let separation = 130.0
    /// A and B at least this far apart, and the runner's middle stretch at
    /// least `minimumMiddle` long, metres.
    public static let minimumLength = 100.0
    public static let minimumMiddle = 30.0
    /// The runner's way back passes no nearer than this to A (nor their way
    /// out to B), metres: coming by the point where they left, moving along the
    /// course, is coming back there, which is another scenario.
    public static let clearance = 100.0

    /// Solves the shape: the runner leaves at 90° (or further back, up to
    /// 130°, when the course must be the shorter by more than a merge allows;
    /// further back they would run along the street they left, which is
    /// turning round rather than leaving), as close as
    /// `minimumHeight` lets them, and the course's block is as deep as the
    /// ratio needs; both grow until they are `separation` apart.
    public var divergence: Divergence {
        let theta = returnAngle * .pi / 180
        func tanHalf(_ a: Double) -> Double { tan(a / 2) }
        for departureDegrees in [90.0, 110, 130] {
            let beta = departureDegrees * .pi / 180
            let cots = 1 / tan(beta) + 1 / tan(theta)
            let k = tanHalf(beta) + tanHalf(theta)
            var h = Self.minimumHeight
            while h <= 800 {
                // A merge (θ < 90°) ends a leg that passes A at D·sin θ.
                let pastA = returnAngle < 90 ? Self.clearance / sin(theta) : 0
                let d = max(Self.minimumLength, h * cots + Self.minimumMiddle, pastA)
                // Runner: d + h·k (the chord plus what the detour adds); course: d + 2w.
                let w = (ratio * (d + h * k) - d) / 2
                if w >= 0 && h + w >= Self.separation {
                    var course = [Point(0, 0)]
                    if w >= 1 { course += [Point(0, -w), Point(d, -w)] }
                    course.append(Point(d, 0))
                    let runner = [Point(0, 0), Point(h / tan(beta), h), Point(d - h / tan(theta), h), Point(d, 0)]
                    return Divergence(length: d, height: h, depth: w, departure: departureDegrees, runner: runner,
                                      course: course)
                }
                h += 5
            }
        }
        // Unreachable for the grid's ratios and angles (checked by a test); a plain detour otherwise.
        return Divergence(length: 200, height: 130, depth: 0, departure: 90,
                          runner: [Point(0, 0), Point(0, 130), Point(200, 130), Point(200, 0)],
                          course: [Point(0, 0), Point(200, 0)])
    }
}
