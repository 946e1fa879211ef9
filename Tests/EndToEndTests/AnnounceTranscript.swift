import Foundation
import MoonRunnerProtocol

/// What an announcer wrote with `--output DIR`, read back and understood
/// independently of the announcer's own wording code: each NNNN.txt is
/// classified and its numbers parsed, in English or Mandarin.
struct AnnounceTranscript {
    struct Entry {
        var number: Int
        var text: String
        var wav: URL
        var said: Said
    }

    /// One announcement, as a listener understands it.
    enum Said: Equatable {
        case start, pause, resume, autopause, lap(Int), badge, gpsLost, gpsRegained
        case split(number: Int, time: Double, pace: Double)
        case summary(km: Double, moving: Double, pace: Double)
        case unknown(String)

        /// The EVENT it answers (`resume` for both kinds of resume).
        var tag: String {
            switch self {
            case .start: "start"
            case .pause: "pause"
            case .resume: "resume"
            case .autopause: "autopause"
            case .lap: "lap"
            case .badge: "badge"
            case .gpsLost: "gps_lost"
            case .gpsRegained: "gps_regained"
            case .split: "split"
            case .summary: "stop"
            case let .unknown(text): "?\(text)"
            }
        }
    }

    var entries: [Entry]

    /// Reads `dir`; `language` is en or cmn.
    init(dir: URL, language: String) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        let numbers = names.filter { $0.hasSuffix(".txt") }.compactMap { Int($0.dropLast(4)) }.sorted()
        entries = try numbers.map { n in
            let base = dir.appendingPathComponent(String(format: "%04d", n))
            let text = try String(contentsOf: base.appendingPathExtension("txt"), encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            return Entry(number: n, text: text, wav: base.appendingPathExtension("wav"),
                         said: language == "cmn" ? Self.mandarin(text) : Self.english(text))
        }
    }

    var tags: [String] { entries.map(\.said.tag) }

    /// The tags the session's events call for, in order (what the default settings announce).
    static func expectedTags(_ events: [EventReply]) -> [String] {
        events.compactMap { e in
            switch e.event {
            case "resume" where e.cause == "recovery": nil
            case "autoresume", "resume": "resume"
            case "fault", "terrain_lost", "terrain_regained": nil  // never said (Announcer.silentKinds)
            default: e.event
            }
        }
    }

    // MARK: English

    static func english(_ t: String) -> Said {
        switch t {
        case "Run started.", "Walk started.": return .start
        case "Paused.": return .pause
        case "Resumed.": return .resume
        case "Auto-paused.": return .autopause
        case "GPS signal lost.": return .gpsLost
        case "GPS signal back.": return .gpsRegained
        default: break
        }
        if let m = t.wholeMatch(of: /Lap (\d+)\./) { return .lap(Int(m.1) ?? -1) }
        if t.hasPrefix("Badge earned: ") || t.hasSuffix(" distance passed.") || t.hasPrefix("Silver ") || t.hasPrefix("Gold ") {
            return .badge
        }
        if let m = t.wholeMatch(of: /(\d+) kilometres?\. Split (.+)\. Pace (.+) per kilometre\./),
           let n = Int(m.1), let time = englishDuration(String(m.2)), let pace = englishPace(String(m.3)) {
            return .split(number: n, time: time, pace: pace)
        }
        if let m = t.wholeMatch(of: /(?:Run|Walk) finished\. ([\d.]+) kilometres? in (.+)\. Average pace (.+) per kilometre\./),
           let km = Double(m.1), let moving = englishDuration(String(m.2)), let pace = englishPace(String(m.3)) {
            return .summary(km: km, moving: moving, pace: pace)
        }
        return .unknown(t)
    }

    /// "5 minutes 12", "6 minutes", "45 seconds", "1 hour 2 minutes".
    static func englishDuration(_ s: String) -> Double? {
        let w = s.split(separator: " ").map(String.init)
        var total = 0.0, i = 0
        while i < w.count {
            guard let v = Double(w[i]) else { return nil }
            let unit = i + 1 < w.count ? w[i + 1] : "seconds"
            switch unit {
            case "hour", "hours": total += v * 3600
            case "minute", "minutes": total += v * 60
            case "second", "seconds": total += v
            default: return nil
            }
            i += i + 1 < w.count ? 2 : 1
        }
        return total
    }

    /// "5 12", "5 oh 5", "5 minutes".
    static func englishPace(_ s: String) -> Double? {
        let w = s.split(separator: " ").map(String.init)
        guard let m = Double(w.first ?? "") else { return nil }
        if w.count == 2, w[1].hasPrefix("minute") { return m * 60 }
        guard let sec = Double(w.last ?? ""), w.count == 2 || (w.count == 3 && w[1] == "oh") else { return nil }
        return m * 60 + sec
    }

    // MARK: Mandarin

    static func mandarin(_ t: String) -> Said {
        switch t {
        case "跑步开始。", "步行开始。": return .start
        case "已暂停。": return .pause
        case "继续。", "自动继续。": return .resume
        case "自动暂停。": return .autopause
        case "卫星信号丢失。": return .gpsLost
        case "卫星信号恢复。": return .gpsRegained
        default: break
        }
        if let m = t.wholeMatch(of: /第(.+)圈。/) { return .lap(HanziNumber.parse(String(m.1)) ?? -1) }
        if t.contains("徽章") { return .badge }
        if let m = t.wholeMatch(of: /(.+)公里。本段用时(.+)。配速每公里(.+)。/),
           let n = HanziNumber.parse(String(m.1)), let time = mandarinDuration(String(m.2)),
           let pace = mandarinDuration(String(m.3)) {
            return .split(number: n, time: time, pace: pace)
        }
        if let m = t.wholeMatch(of: /(?:跑步|步行)结束。(.+)公里，用时(.+)。平均配速每公里(.+)。/),
           let km = HanziNumber.decimal(String(m.1)), let moving = mandarinDuration(String(m.2)),
           let pace = mandarinDuration(String(m.3)) {
            return .summary(km: km, moving: moving, pace: pace)
        }
        return .unknown(t)
    }

    /// "五分十二秒", "两分钟", "四十五秒", "一小时二分钟".
    static func mandarinDuration(_ s: String) -> Double? {
        var rest = Substring(s), total = 0.0
        for (mark, scale) in [("小时", 3600.0), ("分钟", 60.0), ("分", 60.0), ("秒", 1.0)] {
            guard let r = rest.range(of: mark) else { continue }
            guard let v = HanziNumber.parse(String(rest[..<r.lowerBound])) else { return nil }
            total += Double(v) * scale
            rest = rest[r.upperBound...]
        }
        return rest.isEmpty ? total : nil
    }
}

/// sox's view of a WAV file.
struct WAVCheck {
    var seconds: Double
    var rate: Int
    var channels: Int
    var rms: Double

    init(_ url: URL) throws {
        let info = try run("/usr/bin/soxi", [url.path])
        guard info.status == 0 else { throw HarnessError("soxi \(url.lastPathComponent): \(info.err)") }
        func field(_ name: String) -> String {
            info.out.split(separator: "\n").first { $0.hasPrefix(name) }?.split(separator: ":", maxSplits: 1).last
                .map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        }
        rate = Int(field("Sample Rate")) ?? 0
        channels = Int(field("Channels")) ?? 0
        let duration = try run("/usr/bin/soxi", ["-D", url.path])
        seconds = Double(duration.out.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        let stat = try run("/usr/bin/sox", [url.path, "-n", "stat"])
        let line = stat.err.split(separator: "\n").first { $0.hasPrefix("RMS     amplitude") } ?? ""
        rms = Double(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
    }

    /// Seconds of speech that are plausible for `text`: espeak-ng at 170
    /// words a minute says an English word in about 0.35 s and a Mandarin
    /// syllable (one character) in about 0.3 s; a cue tone adds 0.23 s.
    static func plausible(_ text: String, language: String) -> ClosedRange<Double> {
        if language == "cmn" {
            let syllables = Double(text.unicodeScalars.filter { (0x4E00...0x9FFF).contains($0.value) }.count)
            return (0.12 * syllables)...(0.6 * syllables + 1.0)
        }
        let words = Double(text.split(whereSeparator: { $0 == " " || $0 == "-" }).count)
        return (0.15 * words)...(0.9 * words + 1.0)
    }
}
