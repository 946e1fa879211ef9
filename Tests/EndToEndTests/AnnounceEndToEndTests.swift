import Foundation
import MoonRunnerProtocol
import Testing

/// The announcer with real parts: gpsfake replaying a shared simulated run,
/// moonrunnerd with an IMU trace composed along that run, the real CLI, and
/// the real `moonrunner-announce` binary writing WAVs with espeak-ng.
@Suite("Announcer end to end", .serialized)
struct AnnounceEndToEndTests {
    static let scenario = "a_track"
    static var sim: URL { Paths.data.appendingPathComponent("gps/sim") }
    static var steps: URL { Paths.data.appendingPathComponent("steps") }
    static var dataPresent: Bool {
        FileManager.default.fileExists(atPath: sim.appendingPathComponent("\(scenario).nmea").path)
            && FileManager.default.fileExists(atPath: steps.appendingPathComponent("uci_chest_casale_nonwalk").path)
    }

    /// The first `epochs` epochs of the run as NMEA, and an IMU trace of the
    /// same run laid along the log's clock (its no-fix prefix included, so
    /// that the stops of the run are stops for the IMU too).
    static func recording(in rig: Rig, epochs: Int) throws -> (nmea: URL, imu: URL) {
        let source = try String(contentsOf: sim.appendingPathComponent("\(scenario).nmea"), encoding: .utf8)
        var lines: [Substring] = []
        var seen = 0
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("$GPGGA") { seen += 1 }
            if seen > epochs { break }
            lines.append(line)
        }
        let nmea = rig.dir.appendingPathComponent("\(scenario)-part.nmea")
        try (lines.joined(separator: "\n") + "\n").write(to: nmea, atomically: true, encoding: .utf8)

        let truth = try JSONSerialization.jsonObject(with: Data(contentsOf: sim.appendingPathComponent("\(scenario).truth.json")))
            as? [String: Any] ?? [:]
        let prefix = truth["prefix_nofix_epochs"] as? Double ?? 0
        let intervals = (truth["intervals"] as? [[String: Any]] ?? []).enumerated().map { i, v -> [String: Any] in
            let start = (v["start_s"] as? Double ?? 0) + prefix, end = (v["end_s"] as? Double ?? 0) + prefix
            return ["state": v["state"] ?? "moving", "start_s": i == 0 ? 0 : start, "end_s": end]
        }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: intervals), as: UTF8.self)
        let imu = rig.dir.appendingPathComponent("imu.csv.gz")
        let made = try MoonRunnerTestSupport.run("/usr/bin/env", ["python3", Paths.root.appendingPathComponent("Tests/Tools/compose_imu.py").path,
                                            "--intervals", json, "--t0", "0",
                                            "--moving", steps.appendingPathComponent("oxford_step_counter").path,
                                            steps.appendingPathComponent("adept_outdoor_run_hip").path,
                                            "--still", steps.appendingPathComponent("uci_chest_casale_nonwalk").path,
                                            "--seed", "1", "--out", imu.path], timeout: 120)
        guard made.status == 0 else { throw HarnessError("compose_imu: \(made.err)") }
        return (nmea, imu)
    }

    /// A rig replaying the first `epochs` epochs of the run at `speed`, with
    /// its IMU (the tests that call it are enabled only if `dataPresent`).
    static func replaying(_ tag: String, epochs: Int, speed: Double, config: String? = nil) throws -> (Rig, imu: String) {
        let rig = try Rig(tag)
        let (nmea, imu) = try recording(in: rig, epochs: epochs)
        let spec = "replay:\(imu.path),speed=\(speed)"
        try rig.startGPS(nmea: nmea, epochsPerSecond: speed, sentencesPerEpoch: 8)
        try rig.startDaemon(speed: speed, imu: spec, config: config)
        return (rig, spec)
    }

    static func announcer(_ rig: Rig, language: String, output: URL, extra: [String] = []) throws -> Child {
        let child = try Child(Paths.announcer, ["--socket", rig.socket, "--output", output.path, "--language", language] + extra,
                              log: rig.dir.appendingPathComponent("announce-\(language).log"))
        let watching = eventually(timeout: 15) { child.log.contains("watching") }
        guard watching else { throw HarnessError("the announcer did not connect: \(child.log)") }
        return child
    }

    /// Every announcement answers one of the session's events, in their order;
    /// the splits are the session's, with their numbers, times and paces.
    static func check(_ t: AnnounceTranscript, against show: SessionReply, language: String) {
        #expect(t.entries.map(\.number) == Array(1...max(1, t.entries.count)), "numbered in order from 0001")
        #expect(t.tags == AnnounceTranscript.expectedTags(show.events), "\(language): said \(t.tags)")
        let whole = show.figures.splitsKm.filter { !$0.partial }
        let trackKm = show.figures.splitsKm.reduce(0) { $0 + $1.distanceM } / 1000
        let spoken = t.entries.compactMap { e -> (Int, Double, Double)? in
            if case let .split(n, time, pace) = e.said { return (n, time, pace) }
            return nil
        }
        #expect(spoken.map(\.0) == Array(1...max(1, Int(trackKm.rounded(.down)))).prefix(spoken.count).map { $0 })
        // Since points carry the session's distance the track the splits are
        // measured on is the distance shown.
        let shownKm = show.stats.distance / 1000
        #expect(abs(trackKm - shownKm) < 0.001, "\(language): track \(trackKm) km, shown \(shownKm) km")
        #expect(spoken.count == Int(shownKm.rounded(.down)) && spoken.count == whole.count,
                "\(language): \(spoken.count) splits said, \(whole.count) in show, \(shownKm) km")
        for (n, time, pace) in spoken where n >= 1 && n <= whole.count {
            let split = whole[n - 1]
            #expect(abs(pace - (split.paceS ?? -99)) <= 1, "\(language) split \(n): said pace \(pace) s, show \(split.paceS ?? -1)")
            #expect(abs(time - split.elapsedS) <= 1, "\(language) split \(n): said \(time) s, show \(split.elapsedS)")
        }
        if case let .summary(km, moving, pace)? = t.entries.last?.said {
            #expect(abs(km - show.stats.distance / 1000) <= 0.006, "\(language): summary \(km) km, show \(show.stats.distance) m")
            #expect(abs(moving - show.stats.moving) <= 1)
            #expect(abs(pace - show.stats.moving / show.stats.distance * 1000) <= 1)
        } else {
            Issue.record("\(language): the last announcement is not the summary: \(t.entries.last?.text ?? "none")")
        }
        #expect(!t.entries.contains { if case .unknown = $0.said { true } else { false } })
    }

    @Test("a run replayed at 10x: the expected announcements in order with the session's numbers, real speech, nothing after stop; in English and Mandarin",
          .enabled(if: AnnounceEndToEndTests.dataPresent, "the shared data's gps/sim/a_track.nmea or steps/ is absent (MOONRUNNER_DATA)"))
    func replay() throws {
        let (rig, _) = try Self.replaying("announce", epochs: 900, speed: 10)
        let dirs = ["en": rig.dir.appendingPathComponent("said-en"), "cmn": rig.dir.appendingPathComponent("said-cmn")]
        let announcers = try dirs.map { try Self.announcer(rig, language: $0.key, output: $0.value) }
        #expect(try rig.cli("start", "--activity", "run").status == 0)
        // Past the first stop of the run and the second km, then stop while fixes still come.
        let live = try rig.waitFor(timeout: 120, "2.15 km") { $0.distanceM > 2150 }
        #expect(try rig.cli("stop").status == 0)
        let id = try #require(live.session)
        let summarised = eventually(timeout: 10) {
            dirs.values.allSatisfy { dir in
                (try? AnnounceTranscript(dir: dir, language: dir.lastPathComponent.hasSuffix("cmn") ? "cmn" : "en"))?
                    .entries.last?.said.tag == "stop"
            }
        }
        #expect(summarised, "no summary after stop")
        let counts = try dirs.mapValues { try FileManager.default.contentsOfDirectory(atPath: $0.path).count }
        // Silence can only be shown over a while: 3 s, 30 s of the run at 10x, with fixes still coming.
        Thread.sleep(forTimeInterval: 3)
        let later = try dirs.mapValues { try FileManager.default.contentsOfDirectory(atPath: $0.path).count }
        #expect(later == counts, "nothing is said after stop")
        #expect(announcers.allSatisfy { $0.isRunning })

        let show = try rig.session(id)
        for (language, dir) in dirs.sorted(by: { $0.key < $1.key }) {
            let t = try AnnounceTranscript(dir: dir, language: language)
            print("announcer transcript (\(language)):\n" + t.entries.map { "  \(String(format: "%04d", $0.number)) \($0.text)" }.joined(separator: "\n"))
            Self.check(t, against: show, language: language)
            #expect(t.tags.contains("autopause") && t.tags.contains("badge"), "\(language): \(t.tags)")
            for e in t.entries {
                let wav = try WAVCheck(e.wav)
                #expect(wav.rate == 22_050 && wav.channels == 1)
                let range = WAVCheck.plausible(e.text, language: language)
                #expect(range.contains(wav.seconds), "\(language) \(e.number) \"\(e.text)\": \(wav.seconds) s, expected \(range)")
                #expect(wav.rms > 0.02, "\(language) \(e.number): RMS \(wav.rms), silence?")
            }
        }
    }

    @Test("the daemon is killed and restarted mid-run: the announcer reconnects, says nothing wrong, misses no split",
          .enabled(if: AnnounceEndToEndTests.dataPresent, "the shared data's gps/sim/a_track.nmea or steps/ is absent (MOONRUNNER_DATA)"))
    func daemonRestart() throws {
        // The IMU trace starts again with the restarted daemon: no auto-pause, so
        // that its stillness at the start cannot pause a run the GPS sees going on.
        let config = "auto_pause:\n  enabled: false\n"
        let (rig, imu) = try Self.replaying("annrestart", epochs: 900, speed: 20, config: config)
        let dir = rig.dir.appendingPathComponent("said")
        let announcer = try Self.announcer(rig, language: "en", output: dir)
        #expect(try rig.cli("start").status == 0)
        let first = eventually(timeout: 60) {
            (try? AnnounceTranscript(dir: dir, language: "en"))?.tags.contains("split") == true
        }
        try #require(first, "no first split: \(announcer.log)")
        let before = try AnnounceTranscript(dir: dir, language: "en").entries.count
        rig.daemon?.signal(SIGKILL)
        #expect(rig.daemon?.wait(timeout: 5) != nil)
        #expect(eventually(timeout: 10) { announcer.log.contains("reconnecting") || announcer.log.contains("retrying") })
        try rig.startDaemon(speed: 20, imu: imu, config: config)
        let live = try rig.waitFor(timeout: 60, "2.15 km after the restart") { $0.distanceM > 2150 && $0.state == .recording }
        #expect(try rig.cli("stop").status == 0)
        #expect(eventually(timeout: 10) { (try? AnnounceTranscript(dir: dir, language: "en"))?.tags.last == "stop" })
        #expect(announcer.isRunning)
        #expect(announcer.log.contains("watching \(rig.socket) (daemon 0.1.0) again") || announcer.log.contains("again"))

        let show = try rig.session(try #require(live.session))
        #expect(show.events.contains { $0.cause == "recovery" }, "the session was resumed, not restarted")
        let t = try AnnounceTranscript(dir: dir, language: "en")
        print("announcer transcript across a daemon restart:\n" + t.entries.map { "  \($0.text)" }.joined(separator: "\n"))
        Self.check(t, against: show, language: "en")
        #expect(t.tags.filter { $0 == "start" }.count == 1)
        // At least one split was said after the restart.
        #expect(t.entries.dropFirst(before).contains { $0.said.tag == "split" })
    }

    @Test("no daemon yet, no espeak-ng, no sound card, mute and unmute: the announcer waits, says so once, carries on")
    func robustness() throws {
        let rig = try Rig("annrobust")
        // Started before the daemon: it retries until the socket is there.
        let dir = rig.dir.appendingPathComponent("said")
        let filed = try Child(Paths.announcer, ["--socket", rig.socket, "--output", dir.path],
                              log: rig.dir.appendingPathComponent("announce-files.log"))
        // No espeak-ng on its PATH and no sound card on this machine: only the tone (if any) and the log.
        let blind = try Child(Paths.announcer, ["--socket", rig.socket], log: rig.dir.appendingPathComponent("announce-alsa.log"),
                              env: ["PATH": rig.dir.path])
        #expect(eventually(timeout: 10) { filed.log.contains("retrying") && blind.log.contains("retrying") },
                "both wait for the daemon: \(filed.log) \(blind.log)")
        try rig.startGPS(epochsPerSecond: 20, loop: true)
        try rig.startDaemon(speed: 20, loop: true)
        #expect(eventually(timeout: 15) { filed.log.contains("watching") && blind.log.contains("watching") })
        #expect(try rig.cli("start").status == 0)
        #expect(eventually(timeout: 10) { (try? AnnounceTranscript(dir: dir, language: "en"))?.tags == ["start"] })

        #expect(try rig.cli("announce", "--mute").out.contains("muted"))
        #expect(try rig.status().quiet == true)
        #expect(try rig.cli("lap").status == 0)
        #expect(try rig.cli("announce").out.contains("muted"))
        #expect(try rig.cli("announce", "--unmute").out.contains("announcements on"))
        #expect(try rig.cli("lap").status == 0)
        #expect(eventually(timeout: 10) { (try? AnnounceTranscript(dir: dir, language: "en"))?.entries.last?.said == .lap(2) },
                "lap 1 came while muted and is not said; lap 2 is")
        let said = try AnnounceTranscript(dir: dir, language: "en").entries
        #expect(said.map(\.said.tag).filter { $0 == "start" || $0 == "lap" } == ["start", "lap"], "\(said.map(\.text))")
        // One lap more for the speaker without espeak-ng and sound card.
        #expect(try rig.cli("lap").status == 0)
        #expect(eventually(timeout: 10) { blind.log.contains("failed 0001 lap") || blind.log.contains("said 0001 lap") })
        #expect(blind.log.contains("espeak-ng is not installed"))
        #expect(blind.log.components(separatedBy: "espeak-ng is not installed").count == 2, "said once")
        #expect(filed.isRunning && blind.isRunning)
        #expect(try rig.cli("stop").status == 0)

        // A bad configuration is refused naming the key, with EX_CONFIG.
        let bad = rig.dir.appendingPathComponent("announce.yaml")
        try "announce:\n  splitz: true\n".write(to: bad, atomically: true, encoding: .utf8)
        let refused = try run(Paths.announcer, ["--socket", rig.socket, "--config", bad.path], timeout: 10)
        #expect(refused.status == 78)
        #expect(refused.err.contains("announce.splitz") && refused.err.contains("did you mean announce.splits"))
        let badLanguage = try run(Paths.announcer, ["--socket", rig.socket, "--language", "fr"], timeout: 10)
        #expect(badLanguage.status == 78 && badLanguage.err.contains("--language"))
    }

    @Test("a sound device that takes nothing: each announcement gives up in time, what waited meanwhile is dropped, not read out later")
    func stuckSoundDevice() throws {
        let rig = try Rig("annstuck")
        // An aplay that never reads its input, as a wedged device would behave.
        let fake = rig.dir.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: fake, withIntermediateDirectories: true)
        let aplay = fake.appendingPathComponent("aplay")
        try "#!/bin/sh\nexec sleep 60\n".write(to: aplay, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: aplay.path)
        try rig.startGPS(epochsPerSecond: 10, loop: true)
        try rig.startDaemon(speed: 10, loop: true)
        // Only the start and the laps asked for here (the demo walk's own stops stay silent).
        let config = rig.dir.appendingPathComponent("announce.yaml")
        try "announce:\n  auto_pause: false\ncues:\n  auto_pause: false\n".write(to: config, atomically: true, encoding: .utf8)
        let stuck = try Child(Paths.announcer, ["--socket", rig.socket, "--config", config.path],
                              log: rig.dir.appendingPathComponent("announce.log"),
                              env: ["PATH": fake.path + ":/usr/bin:/bin"])
        #expect(eventually(timeout: 15) { stuck.log.contains("watching") })
        #expect(try rig.cli("start").status == 0)
        let began = Date()
        for _ in 0..<3 { #expect(try rig.cli("lap").status == 0) }
        // "Run started." is about 1 s of audio: given up after about 6 s; the laps asked
        // meanwhile are more than max_delay_s (5 s) old by then.
        #expect(eventually(timeout: 15) { stuck.log.contains("failed 0001 start") }, "\(stuck.log)")
        #expect(Date().timeIntervalSince(began) < 12)
        #expect(eventually(timeout: 5) { stuck.log.components(separatedBy: "dropped (stale) lap").count == 4 }, "\(stuck.log)")
        #expect(stuck.log.contains("did not play the audio in time"))
        #expect(try rig.cli("lap").status == 0)
        #expect(eventually(timeout: 15) { stuck.log.contains("Lap 4.") }, "the next one is tried: \(stuck.log)")
        // Tried: only the start and the lap asked after the device gave up.
        let tried = stuck.log.split(separator: "\n").filter { $0.contains(": failed ") || $0.contains(": said ") }
        #expect(tried.count == 2 && tried.last?.hasSuffix("Lap 4.") == true, "\(tried)")
        #expect(stuck.isRunning)
        #expect(try rig.cli("stop").status == 0)
    }

    @Test("the announcer's unit verifies and its sandbox scores an exposure of 2.5 or less with sound access")
    func unitSecurity() throws {
        let unit = Paths.root.appendingPathComponent("systemd/moonrunner-announce.service")
        let value = try exposure(of: unit)
        print("moonrunner-announce.service exposure: \(value)")
        #expect(value <= 2.5, "exposure \(value)")
        let text = try String(contentsOf: unit, encoding: .utf8)
        #expect(text.contains("DeviceAllow=char-alsa rw") && text.contains("DevicePolicy=closed"))
        #expect(text.contains("SupplementaryGroups=audio"))

        let dir = try Paths.tempDir("aunit")
        defer { try? FileManager.default.removeItem(at: dir) }
        try text.replacingOccurrences(of: "/usr/bin/moonrunner-announce", with: Paths.announcer)
            .write(to: dir.appendingPathComponent("moonrunner-announce.service"), atomically: true, encoding: .utf8)
        let verify = try run("/usr/bin/systemd-analyze", ["verify", dir.appendingPathComponent("moonrunner-announce.service").path],
                             timeout: 60)
        let complaints = (verify.out + verify.err).split(separator: "\n").filter {
            // Its man page comes with the package (deb_check.py verifies the installed unit with it).
            $0.contains("moonrunner-announce") && !$0.contains("Failed to") && !$0.contains("Command 'man ")
        }
        #expect(complaints.isEmpty, "\(complaints)")
    }
}
