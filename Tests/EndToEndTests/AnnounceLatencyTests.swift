import Foundation
import MoonRunnerProtocol
import Testing

/// How long from the daemon deciding something to the first sample of the
/// announcement, at 1x (`make announce-latency`; ~7 minutes, not part of
/// `make test`). Measured as `latency_s` in the announcer's log: the wall
/// clock when the first audio (cue or voice) went to the sink — a WAV file
/// with --output, aplay's pipe otherwise — minus the EVENT's `detected_at`
/// (at 1x the daemon's clock is the wall clock). Laps are asked every 6 s
/// on top of what the run itself brings (start, auto-pause, split, badge).
@Suite("Announcer latency at 1x", .serialized,
       .enabled(if: ProcessInfo.processInfo.environment["MOONRUNNER_ANNOUNCE_LATENCY"] == "1",
                "7 minutes at 1x: make announce-latency runs it (MOONRUNNER_ANNOUNCE_LATENCY=1); make test leaves it out"),
       .enabled(if: AnnounceEndToEndTests.dataPresent, "the shared data's gps/sim/a_track.nmea or steps/ is absent (MOONRUNNER_DATA)"))
struct AnnounceLatencyTests {
    @Test("event to first audio sample, median and max, per announcer")
    func latency() throws {
        let (rig, _) = try AnnounceEndToEndTests.replaying("annlatency", epochs: 460, speed: 1)
        let en = try AnnounceEndToEndTests.announcer(rig, language: "en", output: rig.dir.appendingPathComponent("en"))
        let cmn = try AnnounceEndToEndTests.announcer(rig, language: "cmn", output: rig.dir.appendingPathComponent("cmn"))
        let config = rig.dir.appendingPathComponent("alsa-null.yaml")
        try "alsa_device: \"null\"\n".write(to: config, atomically: true, encoding: .utf8)
        let alsa = try Child(Paths.announcer, ["--socket", rig.socket, "--config", config.path],
                             log: rig.dir.appendingPathComponent("announce-alsa.log"))
        #expect(eventually(timeout: 15) { alsa.log.contains("watching") })
        #expect(try rig.cli("start", "--activity", "run").status == 0)
        let deadline = Date().addingTimeInterval(400)
        var laps = 0
        while Date() < deadline {
            // The pace of laps is the load under test: one every 6 s at 1x, on top of the run's own events.
            Thread.sleep(forTimeInterval: 6)
            if try rig.cli("lap").status == 0 { laps += 1 }
            if try rig.status().distanceM > 1050 && laps >= 40 { break }
        }
        #expect(try rig.cli("stop").status == 0)
        // Each announcer has said (or given up on) the summary: "said 0042 stop latency_s=…".
        let summarised = eventually(timeout: 15) {
            [en, cmn, alsa].allSatisfy { child in
                child.log.split(separator: "\n").contains { row in
                    let words = row.split(separator: " ")
                    return words.count > 3 && (words[1] == "said" || words[1] == "failed") && words[3] == "stop"
                }
            }
        }
        #expect(summarised, "no summary within 15 s of stop")
        for (name, child) in [("en, WAV files", en), ("cmn, WAV files", cmn), ("en, ALSA null device via aplay", alsa)] {
            let rows = child.log.split(separator: "\n").filter { $0.contains("said ") }
            func figures(_ key: String) -> [Double] {
                rows.compactMap { row -> Double? in
                    guard let r = row.range(of: key + "=") else { return nil }
                    return Double(row[r.upperBound...].prefix { $0 != " " })
                }.sorted()
            }
            let values = figures("latency_s"), own = figures("own_s")
            guard !values.isEmpty else {
                Issue.record("\(name): nothing said; log: \(child.log.suffix(800))")
                continue
            }
            let median = values[values.count / 2]
            print(String(format: "announce latency (%@): n=%d median %.3f s, max %.3f s; announcer's own part median %.3f s, max %.3f s",
                         name, values.count, median, values.last ?? 0, own.isEmpty ? .nan : own[own.count / 2], own.last ?? .nan))
            // Per trigger: "moonrunner-announce: said 0007 lap latency_s=..."
            var byTrigger: [String: [Double]] = [:]
            for row in rows {
                let words = row.split(separator: " ")
                guard words.count > 4, let r = row.range(of: "latency_s="),
                      let v = Double(row[r.upperBound...].prefix { $0 != " " }) else { continue }
                byTrigger[String(words[3]), default: []].append(v)
            }
            for (trigger, v) in byTrigger.sorted(by: { $0.key < $1.key }) {
                let sorted = v.sorted()
                print(String(format: "  %@: n=%d median %.3f s, max %.3f s", trigger, sorted.count, sorted[sorted.count / 2],
                             sorted.last ?? 0))
            }
            #expect(median < 1.0 && (values.last ?? 9) < 3.5, "\(name): \(values)")
        }
    }
}
