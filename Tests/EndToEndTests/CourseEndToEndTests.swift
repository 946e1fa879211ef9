import Foundation
import MoonRunnerProtocol
import Testing

/// Courses with every real part: gpsfake + gpsd replaying a simulated run,
/// moonrunnerd, the CLI uploading the course file and following it.
@Suite("Courses end to end", .serialized)
struct CourseEndToEndTests {
    static var courses: URL { Paths.data.appendingPathComponent("courses") }
    static var available: Bool { FileManager.default.fileExists(atPath: courses.path) }

    /// The part of b_urban_detour's course the recorded walk skips, metres
    /// along the course: from the furthest it got before its truth first says
    /// off course to the nearest it comes back to after the last time (as
    /// eval_cues.py measures it).
    static func skippedPart() throws -> ClosedRange<Double> {
        let url = courses.appendingPathComponent("b_urban_detour.course.truth.json")
        let truth = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let off = try #require(truth["off_course"] as? [NSNumber]).map(\.boolValue)
        let progress = try #require(truth["progress_m"] as? [Any]).map { $0 as? Double }
        let first = try #require(off.firstIndex(of: true)), last = try #require(off.lastIndex(of: true))
        let before = try #require(progress[..<first].compactMap { $0 }.max())
        let after = try #require(progress[last...].compactMap { $0 }.min())
        return before...after
    }

    /// The epochs of an NMEA log from `from` to `to` seconds after its first
    /// one (an epoch starts at its GGA; the sim logs begin 30 s before their first fix).
    static func trim(_ nmea: URL, from: Int, to: Int, into out: URL) throws {
        // "\r\n" is one Character in Swift: split on either.
        let lines = try String(contentsOf: nmea, encoding: .utf8).split(whereSeparator: \.isNewline)
        func seconds(_ hhmmss: Substring) -> Int? {
            guard hhmmss.count >= 6, let h = Int(hhmmss.prefix(2)), let m = Int(hhmmss.dropFirst(2).prefix(2)),
                  let s = Int(hhmmss.dropFirst(4).prefix(2)) else { return nil }
            return h * 3600 + m * 60 + s
        }
        var first: Int?, keep = false
        var kept: [Substring] = []
        for line in lines {
            if line.hasPrefix("$GPGGA") || line.hasPrefix("$GNGGA"), let t = seconds(line.split(separator: ",")[1]) {
                first = first ?? t
                keep = t - (first ?? t) >= from && t - (first ?? t) < to
            }
            if keep { kept.append(line) }
        }
        try kept.joined(separator: "\r\n").appending("\r\n").write(to: out, atomically: true, encoding: .utf8)
    }

    @Test("a course uploaded by the CLI is followed live: progress, off course on the detour and back, alerts to watchers and the hook, a destination reached, the course named in the session and its export",
          .enabled(if: available, "../shared/data/courses is absent"))
    func followLive() async throws {
        let rig = try Rig("course")
        let hookLog = rig.dir.appendingPathComponent("hook.log").path
        // 12 minutes of the urban walk (15:00 to 27:00 after its first fix): the
        // detour course leaves its street at ~18:08 and comes back at ~21:05.
        let nmea = rig.dir.appendingPathComponent("urban.nmea")
        try Self.trim(Paths.data.appendingPathComponent("gps/sim/b_urban.nmea"), from: 930, to: 1650, into: nmea)
        try rig.startGPS(nmea: nmea, epochsPerSecond: 20, sentencesPerEpoch: 8)
        try rig.startDaemon(speed: 20, config: """
            hooks:
              on_transition: "echo $MOONRUNNER_EVENT $MOONRUNNER_DETAIL >> \(hookLog)"
            """, loop: true)
        let added = try rig.cli("course", "add", Self.courses.appendingPathComponent("b_urban_detour.course.tcx").path,
                                "--name", "Detour")
        #expect(added.status == 0 && added.out.contains("added course #1") && added.out.contains("Length    3.37 km"),
                "\(added.out) \(added.err)")
        // A plain track: its turns are found in its shape and listed.
        #expect(added.out.contains("(found in the course's shape)") && added.out.contains("Turn left"), "\(added.out)")
        // Heading for where the walker is at 26:40 as well: they arrive there.
        let truth = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Paths.data.appendingPathComponent("gps/sim/b_urban.truth.json"))) as? [String: Any])
        let positions = try #require(truth["positions"] as? [String: Any])
        let ts = try #require(positions["t_s"] as? [Double]), lats = try #require(positions["lat"] as? [Double])
        let lons = try #require(positions["lon"] as? [Double])
        let k = try #require(ts.firstIndex(of: 1600))
        let started = try rig.cli("start", "--activity", "walk", "--course", "1", "--to", "\(lats[k]),\(lons[k])")
        #expect(started.status == 0 && started.out.contains("Course    Detour"), "\(started.out) \(started.err)")
        let watch = try Child(Paths.cli, ["--socket", rig.socket, "watch", "--until-stop"],
                              log: rig.dir.appendingPathComponent("watch.log"))

        let on = try rig.waitFor(timeout: 30, "on the course") { ($0.course?.progressM ?? 0) > 1150 && $0.course?.onCourse == true }
        #expect(on.course?.id == 1 && on.course?.name == "Detour" && on.home != nil)
        #expect(on.course?.nextCue.map { $0.courseM > 1150 && $0.distanceM >= 0 } == true, "\(String(describing: on.course))")
        #expect((on.destination?.distanceM ?? 0) > 200 && on.destination?.arrived == false)
        let off = try rig.waitFor(timeout: 30, "off course on the detour") { $0.course?.onCourse == false }
        #expect(off.course?.progressM == nil && (off.course?.distanceToCourseM ?? 0) > 50 && off.course?.bearingToCourseDeg != nil)
        let back = try rig.waitFor(timeout: 30, "back on the course") { $0.course?.onCourse == true && ($0.course?.progressM ?? 0) > 1900 }
        #expect((back.course?.toGoM ?? 0) < 1500 && back.course?.etaS != nil)
        _ = try rig.waitFor(timeout: 30, "1000 m to go") { ($0.course?.toGoM ?? .infinity) < 950 }
        let arrived = try rig.waitFor(timeout: 30, "arrived") { $0.destination?.arrived == true }
        #expect((arrived.destination?.distanceM ?? .infinity) < 40)
        #expect(try rig.cli("stop").status == 0)
        _ = watch.wait(timeout: 10)

        let id = try #require(on.session)
        let session = try rig.session(id)
        #expect(session.course == SessionCourseReply(id: 1, name: "Detour", finished: false))
        let events = session.events.map(\.event)
        // The walker cuts straight through the course's loop: off, on the loop for a minute, off again, back.
        #expect(events.filter { $0 == "off_course" }.count == 2 && events.filter { $0 == "on_course" }.count == 2, "\(events)")
        // The turns ahead were said, each with its cue, and none on the loop the walker skipped.
        let turns = session.events.filter { $0.event == "turn_ahead" }
        #expect(!turns.isEmpty && turns.allSatisfy { $0.cue != nil }, "\(events)")
        let skipped = try Self.skippedPart()
        #expect(!turns.contains { skipped.contains($0.cue?.courseM ?? 0) }, "\(skipped): \(turns.compactMap(\.cue))")
        #expect(session.events.contains { $0.event == "course_to_go" && $0.detail == "1000" })
        #expect(events.filter { $0 == "arrived" }.count == 1, "\(events)")
        let gpx = try rig.cli("export", String(id), "--format", "gpx")
        #expect(gpx.out.contains("<desc>Followed course Detour</desc>"))

        let watched = watch.log
        #expect(watched.contains("event off_course") && watched.contains("event on_course") && watched.contains("course_to_go"), "\(watched.suffix(1500))")
        #expect(watched.contains(" course ") && watched.contains(" home ") && watched.contains("event turn_ahead"))
        let hook = eventually(timeout: 10) {
            let text = (try? String(contentsOfFile: hookLog, encoding: .utf8)) ?? ""
            return text.contains("off_course") && text.contains("on_course") && text.contains("course_to_go 1000")
                && text.contains("turn_ahead")
        }
        #expect(hook, "\((try? String(contentsOfFile: hookLog, encoding: .utf8)) ?? "")")
        #expect(rig.daemon?.isRunning == true)
    }

    @Test("files that are not courses are refused with a clear error and store nothing; the daemon and the connection go on")
    func malformedUploads() async throws {
        let rig = try Rig("badcourse")
        try rig.startDaemon(speed: 10, config: "course:\n  max_upload_kb: 2048\n", loop: true)
        let files = rig.dir
        func write(_ name: String, _ data: Data) throws -> String {
            let url = files.appendingPathComponent(name)
            try data.write(to: url)
            return url.path
        }
        let gpx = #"<?xml version="1.0"?><gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>"#
        var rng = SystemRandomNumberGenerator()
        let garbage = Data((0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &rng) })
        let bad: [(String, Data, String)] = [
            ("none.gpx", Data((gpx + "</trkseg></trk></gpx>").utf8), "no track (trkpt) or route (rtept) points"),
            ("one.gpx", Data((gpx + #"<trkpt lat="47" lon="8"/></trkseg></trk></gpx>"#).utf8), "at least two distinct points"),
            ("broken.gpx", Data((gpx + #"<trkpt lat="47" lon="8"/><trkpt lat="47.1" lon="8">"#).utf8), "broken XML"),
            ("garbage.fit", garbage, "not a course"),
            ("huge.gpx", garbage + garbage + garbage, "too_large"),
        ]
        for (name, data, reason) in bad {
            let r = try rig.cli("course", "add", try write(name, data))
            #expect(r.status == 1, "\(name): \(r.status) \(r.out) \(r.err)")
            #expect(r.err.contains(reason), "\(name): \(r.err)")
        }
        if FileManager.default.fileExists(atPath: Self.courses.path) {
            // A FIT damaged in transfer: its CRC no longer matches.
            var fit = [UInt8](try Data(contentsOf: Self.courses.appendingPathComponent("a_track.course.fit")))
            fit[100] ^= 0x5A
            let r = try rig.cli("course", "add", try write("damaged.fit", Data(fit)))
            #expect(r.status == 1 && r.err.contains("CRC is wrong"), "\(r.err)")
        }
        let empty = try rig.cli("course", "add", try write("empty.gpx", Data()))
        #expect(empty.status == 65)
        #expect(try rig.cli("course", "list").out.contains("no courses yet"))

        // The protocol's own checks, on one connection that stays usable.
        let c = try RawClient(path: rig.socket)
        _ = try c.readLine()
        func reply(_ line: String) throws -> String {
            c.send(line + "\n")
            return try c.readLine()
        }
        #expect(try reply(#"?COURSE_DATA={"seq":0,"data":"QUJD"};"#).contains(#""code":"invalid_state""#))
        #expect(try reply(#"?COURSE_ADD={"bytes":10,"chunks":2};"#).contains(#""class":"COURSE_UPLOAD""#))
        #expect(try reply(#"?COURSE_DATA={"seq":1,"data":"QUJD"};"#).contains(#""code":"bad_parameter""#))
        #expect(try reply(#"?COURSE_DATA={"seq":0,"data":"QUJD"};"#).contains(#""code":"invalid_state""#), "the upload was dropped")
        #expect(try reply(#"?COURSE_ADD={"bytes":3000000,"chunks":2000};"#).contains(#""code":"too_large""#))
        #expect(try reply(#"?COURSE_ADD={"bytes":4,"chunks":1,"encoding":"utf8"};"#).contains("COURSE_UPLOAD"))
        #expect(try reply("?COURSE_DATA={\"seq\":0,\"data\":\"" + String(repeating: "x", count: 5000) + "\"};").contains(#""code":"too_long""#))
        #expect(try reply(#"?COURSE_DATA={"seq":0,"data":"abcd"};"#).contains(#""code":"bad_course""#))
        // Uploads in progress are bounded in all: a third full-size one waits.
        let others = try (0..<2).map { _ in try RawClient(path: rig.socket) }
        for o in others {
            _ = try o.readLine()
            o.send(#"?COURSE_ADD={"bytes":2097152,"chunks":1000};"# + "\n")
            #expect(try o.readLine().contains("COURSE_UPLOAD"))
        }
        #expect(try reply(#"?COURSE_ADD={"bytes":1000,"chunks":1};"#).contains(#""code":"busy""#))
        #expect(try reply("?COURSES;").contains(#""courses":[]"#))
        #expect(try reply("?STATUS;").contains(#""class":"STATUS""#))
        #expect(rig.daemon?.isRunning == true)
    }
}
