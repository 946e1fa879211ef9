import Foundation
import MoonRunnerCore

/// How a run's cues fared against the truth (the turn-by-turn targets): every
/// turn said exactly once, 10–40 s before the runner reaches it, with the
/// right words, and nothing said anywhere else.
public struct CueOutcome: Sendable, Encodable, Equatable {
    public var name: String
    public var family: String
    public var noise: Double
    public var speed: Double
    /// Cues the truth has, and how many of them were said exactly once.
    public var expected: Int
    public var cuedOnce: Int
    /// Said twice or more.
    public var repeated: Int
    /// Never said.
    public var missed: Int
    /// Seconds from being said to the runner reaching the cue, one per cue said.
    public var leads: [Double]
    /// Said with another kind (or other following turns) than the truth's.
    public var wrongWord: Int
    /// Said where the truth has no cue (a straight, a bend, behind, the other leg).
    public var falseCues: Int
    /// Turns said again at the turn (`turn_now`), and how far the runner was then, metres.
    public var nowSaid: Int

    /// The issue's window for a cue's lead, seconds.
    public static let leadRange = 10.0...40.0
    /// A cue said within this many metres of a truth's place is that cue: a
    /// corner's peak and the turn drawn can differ by the rounding of the
    /// corner (up to half the 20 m window).
    public static let placeTolerance = 15.0

    /// The targets missed (empty: all met), as `score` found them.
    public private(set) var failures: [String] = []

    private func missedTargets() -> [String] {
        var out: [String] = []
        if cuedOnce < expected { out.append("\(expected - cuedOnce) of \(expected) not said exactly once") }
        let late = leads.filter { !Self.leadRange.contains($0) }
        if !late.isEmpty { out.append("leads outside 10–40 s: \(late.map { String(format: "%.0f", $0) }.joined(separator: ", "))") }
        if wrongWord > 0 { out.append("\(wrongWord) with the wrong words") }
        if falseCues > 0 { out.append("\(falseCues) false") }
        return out
    }

    /// Scores `events` (the run's, engine clock = `start` + seconds from
    /// the start) against `expected` for a runner at `speed` from the course's start.
    public static func score(events: [SessionEvent], expected: [CueScenario.Expected], speed: Double, start: Double,
                             name: String, family: String, noise: Double) -> CueOutcome {
        let ahead = events.filter { $0.kind == .turnAhead }.compactMap { e in e.cue.map { (e, $0) } }
        var o = CueOutcome(name: name, family: family, noise: noise, speed: speed, expected: expected.count, cuedOnce: 0,
                           repeated: 0, missed: 0, leads: [], wrongWord: 0, falseCues: 0,
                           nowSaid: events.filter { $0.kind == .turnNow }.count)
        var used = Set<Int>()
        for x in expected {
            let said = ahead.indices.filter { abs(ahead[$0].1.courseM - x.courseM) <= placeTolerance }
            used.formUnion(said)
            switch said.count {
            case 0: o.missed += 1
            case 1: o.cuedOnce += 1
            default: o.repeated += 1
            }
            for i in said {
                let (e, cue) = ahead[i]
                o.leads.append(start + x.courseM / speed - e.detectedAt)
                if cue.kind != x.kind || cue.then != x.then { o.wrongWord += 1 }
            }
        }
        o.falseCues = ahead.indices.filter { !used.contains($0) }.count
        o.failures = o.missedTargets()
        return o
    }

    private enum CodingKeys: String, CodingKey {
        case name, family, noise, speed, expected, cuedOnce = "cued_once", repeated, missed, leads,
             wrongWord = "wrong_word", falseCues = "false_cues", nowSaid = "now_said", failures
    }
}
