import Foundation
import MoonRunnerCore
import MoonRunnerProtocol

/// Server-Sent Events framing (`event:` and `data:` lines, a blank line
/// after each event) and what each feed item says to a phone. Pure.
public enum EventFrame {
    /// How long a browser waits before reconnecting a dropped stream.
    public static func retry(milliseconds: Int) -> String { "retry: \(milliseconds)\n\n" }

    /// One event; a `data` with line breaks becomes several `data:` lines.
    public static func frame(event: String, data: String) -> String {
        var out = "event: \(event)\n"
        for line in data.split(separator: "\n", omittingEmptySubsequences: false) { out += "data: \(line)\n" }
        return out + "\n"
    }

    /// A feed item for a phone: `status` (the run screen, `LiveView.json`),
    /// `event` (what happened, in words, for a moment on screen) or `link`
    /// (whether the daemon is there).
    public static func frame(for item: FeedItem, phrases p: Phrases, units: UnitSystem) -> String {
        switch item {
        case let .status(_, json):
            return frame(event: "status", data: LiveView(status: json, phrases: p, units: units).json)
        case let .event(e):
            // The state comes with the event, so a transition shows at once, not with the next STATUS.
            return frame(event: "event", data: JSONValue.object([
                "event": .string(e.event), "state": .string(e.state.rawValue), "stateText": .string(p.stateName(e.state)),
                "text": .string(EventWords.text(e, phrases: p, units: units)),
            ]).serialized)
        case let .link(up, reason):
            return frame(event: "link", data: JSONValue.object([
                "up": .bool(up), "text": .string(up ? "" : p[.daemonDown]), "reason": .string(reason),
            ]).serialized)
        }
    }
}

/// An EVENT in a few words for the phone ("Lap 3", "Badge: Moon").
public enum EventWords {
    public static func text(_ e: EventReply, phrases p: Phrases, units: UnitSystem) -> String {
        guard let kind = SessionEventKind(rawValue: e.event) else { return e.event }
        switch kind {
        case .start: return p[.start]
        case .pause, .autopause, .stop: return p.stateName(e.state)
        case .resume, .autoresume: return p[.resume]
        case .lap: return "\(p[.lap]) \(e.detail ?? "")"
        case .badge: return "\(p[.badge]): \(p.badgeName(e.detail ?? ""))"
        case .split:
            let pace = e.split?.paceS.map { Formatting.pace(speed: units.metresPerUnit / $0, units) } ?? ""
            return "\(units.distanceSymbol) \(e.detail ?? "") · \(pace)"
        case .offCourse: return p[.offCourse]
        case .onCourse: return p[.onCourse]
        case .courseToGo: return p.format(.toGoShort, ["distance": Formatting.distance(Double(e.detail ?? "") ?? 0, units)])
        case .courseFinished: return p[.courseFinished]
        case .arrived: return p[.arrived]
        case .gpsLost: return p[.gps] + " ✕"
        case .gpsRegained: return p[.gps] + " ✓"
        case .terrainLost: return p[.terrainModel] + " ✕"
        case .terrainRegained: return p[.terrainModel] + " ✓"
        case .fault: return e.detail ?? e.event
        // The workout's own words for the phone are still to come: the wire name meanwhile.
        case .workoutStep, .targetLow, .targetHigh, .targetOK, .workoutDone: return e.event
        case .batteryLow: return "\(p[.battery]) \(e.detail ?? "") %"
        case .hrConnected: return p[.hrConnected]
        case .hrLost: return p[.hrLost]
        case .hrZone: return "\(p[.heartRate]) · \(p[.hrZone]) \(e.detail ?? "")"
        case .turnAhead, .turnNow:
            guard let cue = e.cue else { return e.detail ?? e.event }
            let text = CueText.text(cue.kind, name: cue.name, then: cue.then, language: p.language)
            return kind == .turnNow ? "\(CueText.arrow(cue.kind)) \(text)"
                : "\(CueText.arrow(cue.kind)) \(text) · \(Formatting.shortDistance(cue.distanceM, units))"
        }
    }
}
