import Foundation
import MoonRunnerCore
import MoonRunnerProtocol

/// The history's template model: one page of sessions, newest first, and
/// the totals of the last weeks and months in the wearer's time zone.
struct SessionsPage {
    struct Row {
        let id: Int64
        let iso: String
        let startValue: String
        let date: String
        let activity: String
        let distance: String
        let distanceValue: String
        let moving: String
        let movingValue: String
        let pace: String
        let badge: String?
        let note: String?
    }

    /// One activity's sums in one period: a ride's kilometres are not a runner's.
    struct Total {
        let label: String
        let activity: String
        let count: Int
        let distance: String
        let moving: String
    }

    let layout: Layout
    let p: [String: String]
    let rows: [Row]
    let empty: Bool
    let older: String?
    let newer: Bool
    let weeks: [Total]
    let months: [Total]
    let zoneNote: String

    /// Weeks and months of totals shown.
    static let weeksShown = 8
    static let monthsShown = 12

    init(layout: Layout, sessions: [SessionInfo], all: [SessionInfo], badges: BadgesReply?, before: Int64?,
         pageSize: Int, phrases p: Phrases, units: UnitSystem, offset: Int?) {
        self.layout = layout
        self.p = p.named([.date, .activity, .distance, .moved, .pace, .badge, .older, .newer,
                          .weeklyTotals, .monthlyTotals, .week, .month, .sessionsCount, .weeksStart,
                          .noSessions])
        var earned: [Int64: [String]] = [:]
        for b in badges?.badges ?? [] {
            let name = p.badgeName(b.name)
            if let s = b.earned?.session { earned[s, default: []].append(name) }
            if let s = b.silver?.session { earned[s, default: []].append("\(name) (\(p[.tierSilver]))") }
            if let s = b.gold?.session { earned[s, default: []].append("\(name) (\(p[.tierGold]))") }
        }
        rows = sessions.map { s in
            let note = s.interrupted ? p[.interrupted] : (s.state == .stopped ? nil : p[.recordingNow])
            return Row(id: s.id, iso: DateText.iso(s.startTime), startValue: FigureText.numberText(s.startTime),
                       date: DateText.readable(s.startTime, offsetMinutes: offset), activity: p.activityName(s.activity),
                       distance: Formatting.distance(s.distanceM, units), distanceValue: FigureText.numberText(s.distanceM),
                       moving: Formatting.duration(s.movingS), movingValue: FigureText.numberText(s.movingS),
                       pace: Formatting.rate(speed: s.movingS > 0 ? s.distanceM / s.movingS : 0, units,
                                             for: (Activity(rawValue: s.activity) ?? .run).profile),
                       badge: earned[s.id].map { $0.joined(separator: ", ") }, note: note)
        }
        empty = sessions.isEmpty && before == nil
        older = sessions.count == pageSize ? sessions.last.map { String($0.id) } : nil
        newer = before != nil
        weeks = Self.totals(all, count: Self.weeksShown, units: units, phrases: p) { s in
            let day = DateText.weekStart(s.startTime, offsetMinutes: offset)
            return (day, DateText.day(Double(day) * 86_400))
        }
        months = Self.totals(all, count: Self.monthsShown, units: units, phrases: p) { s in
            let c = DateText.civil(s.startTime, offsetMinutes: offset ?? 0)
            return (c.year * 12 + c.month, "\(c.year)-\(DateText.two(c.month))")
        }
        zoneNote = p[.weeksStart] + " " + p.format(.timeZoneNote, ["zone": DateText.zone(offset)])
    }

    /// Sums per period and activity (newest period first, its activities in
    /// the profile table's order), over the `count` most recent periods with sessions.
    static func totals(_ sessions: [SessionInfo], count: Int, units: UnitSystem, phrases p: Phrases,
                       period: (SessionInfo) -> (Int, String)) -> [Total] {
        struct Key: Hashable { let period: Int; let activity: Activity }
        var sums: [Key: (label: String, n: Int, distance: Double, moving: Double)] = [:]
        for s in sessions {
            let (key, label) = period(s)
            let k = Key(period: key, activity: Activity(rawValue: s.activity) ?? .run)
            var e = sums[k] ?? (label, 0, 0, 0)
            e.n += 1
            e.distance += s.distanceM
            e.moving += s.movingS
            sums[k] = e
        }
        let shown = Set(Set(sums.keys.map(\.period)).sorted(by: >).prefix(count))
        let order = Dictionary(uniqueKeysWithValues: Activity.allCases.enumerated().map { ($1, $0) })
        return sums.keys.filter { shown.contains($0.period) }
            .sorted { ($0.period, -(order[$0.activity] ?? 0)) > ($1.period, -(order[$1.activity] ?? 0)) }
            .compactMap { key in
                sums[key].map { Total(label: $0.label, activity: p.activityName(key.activity.rawValue), count: $0.n,
                                      distance: Formatting.distance($0.distance, units),
                                      moving: Formatting.duration($0.moving)) }
            }
    }
}
