import Foundation
import MoonRunnerCore
import Testing
@testable import MoonRunnerProtocol

/// `man/moonrunner-protocol.7` against the protocol's own types, as
/// `moonrunner.yaml(5)` is held against the configuration's validator: every
/// request (`CommandName`, and the web app's admin requests) with its
/// parameters, every key the daemon's `ReplyEncoder` writes for each reply
/// class, every error code and every event name is documented, and nothing the
/// page documents is gone.
///
/// The keys come from the encoder itself: each reply class has a sample here,
/// written as the daemon would send it, decoded into its type and encoded
/// again. A key added to a type is then written (or the sample no longer
/// decodes), and a sample that leaves a member empty is refused, so that an
/// optional member cannot hide its keys.
@Suite("The protocol's man page")
struct ProtocolManPageTests {
    static let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("man/moonrunner-protocol.7")

    /// The web app's admin requests (`WebAdminRequest`) and their parameters.
    static let adminRequests: [String: Set<String>] = ["PAIR": [], "DEVICES": [], "REVOKE": ["id"]]

    @Test("every request is documented with exactly the parameters it takes, and no request the daemon does not take")
    func requests() throws {
        let page = try ManPage(contentsOf: Self.page)
        var taken = Dictionary(uniqueKeysWithValues: CommandName.allCases.map { ("?" + $0.rawValue, Set($0.parameters)) })
        for (name, parameters) in Self.adminRequests { taken["?" + name] = parameters }
        let documented = page.sections.filter { $0.key.hasPrefix("?") }
        for (request, parameters) in taken.sorted(by: { $0.key < $1.key }) {
            let listed = try #require(documented[request], "moonrunner-protocol.7 has no section .Ss \(request)")
            #expect(Set(listed) == parameters, "\(request) takes \(parameters.sorted()); the page lists \(listed)")
        }
        #expect(Set(documented.keys) == Set(taken.keys),
                "the page documents requests no one answers: \(Set(documented.keys).subtracting(taken.keys).sorted())")
    }

    @Test("every key the encoder writes for each reply class is documented under it, and the page documents no key that is gone")
    func replyKeys() throws {
        let page = try ManPage(contentsOf: Self.page)
        var written: [String: Set<String>] = [:]
        for sample in Self.samples {
            let line = try sample.encoded()
            let json = try JSONSerialization.jsonObject(with: Data(line.utf8))
            let cls = try #require((json as? [String: Any])?["class"] as? String, "\(line)")
            Self.keys(of: json, in: cls, prefix: "", into: &written)
        }
        let documented = page.sections.filter { !$0.key.hasPrefix("?") && page.replySections.contains($0.key) }
        for (section, keys) in written.sorted(by: { $0.key < $1.key }) {
            let listed = Set(documented[section] ?? [])
            #expect(documented[section] != nil, "moonrunner-protocol.7 has no section .Ss \(section)")
            #expect(keys.subtracting(listed).isEmpty,
                    "moonrunner-protocol.7 does not document \(keys.subtracting(listed).sorted()) of \(section)")
            #expect(listed.subtracting(keys).isEmpty,
                    "moonrunner-protocol.7 documents \(listed.subtracting(keys).sorted()) of \(section), which no reply writes")
        }
        #expect(Set(documented.keys).subtracting(written.keys).isEmpty,
                "the page documents replies no one sends: \(Set(documented.keys).subtracting(written.keys).sorted())")
    }

    @Test("each sample fills every member of its reply, so that the encoder writes all of its keys")
    func samplesAreFull() throws {
        for sample in Self.samples {
            let empty = try sample.emptyMembers()
            #expect(empty.isEmpty, "the \(sample.name) sample leaves \(empty) empty: give each a value")
        }
    }

    @Test("every error code and every event name is documented, and no other")
    func codesAndEvents() throws {
        let page = try ManPage(contentsOf: Self.page)
        let codes = Set(RequestError.Code.allCases.map(\.rawValue))
        let events = Set(SessionEventKind.allCases.map(\.rawValue))
        #expect(Set(page.sections["ERROR CODES"] ?? []) == codes,
                "missing \(codes.subtracting(page.sections["ERROR CODES"] ?? []).sorted()), gone \(Set(page.sections["ERROR CODES"] ?? []).subtracting(codes).sorted())")
        #expect(Set(page.sections["EVENTS"] ?? []) == events,
                "missing \(events.subtracting(page.sections["EVENTS"] ?? []).sorted()), gone \(Set(page.sections["EVENTS"] ?? []).subtracting(events).sorted())")
    }

    @Test("the page proves itself: a key left out of it is named as undocumented")
    func leftOutKeyIsFound() throws {
        let text = try String(contentsOf: Self.page, encoding: .utf8)
        let without = text.replacingOccurrences(of: ".It Sy gps.grade Pq string\n", with: "")
        let page = ManPage(text: without)
        var written: [String: Set<String>] = [:]
        let status = try #require(Self.samples.first { $0.name == "StatusReply" })
        Self.keys(of: try JSONSerialization.jsonObject(with: Data(try status.encoded().utf8)), in: "STATUS", prefix: "",
                  into: &written)
        let whole = ManPage(text: text)
        let missing = written["STATUS", default: []].subtracting(page.sections["STATUS"] ?? [])
        #expect(missing == written["STATUS", default: []].subtracting(whole.sections["STATUS"] ?? []).union(["gps.grade"]))
    }

    // MARK: - The keys of an encoded reply

    /// Where a key holds an object documented in a section of its own: `SECTION.path` to that section.
    static let objects = [
        "SESSIONS.sessions": "session object", "SESSION.session": "session object", "SESSION.events": "EVENT",
        "SESSION.figures.splits_km": "split object", "SESSION.figures.splits_mi": "split object",
        "EVENT.split": "split object", "BADGES.badges": "badge object", "BADGES.longest": "badge run object",
        "badge object.earned": "badge run object", "badge object.silver": "badge run object",
        "badge object.gold": "badge run object", "badge object.best": "badge run object",
        "COURSES.courses": "course object", "COURSE.course": "course object",
        "DEVICES.devices": "device object", "REVOKED.device": "device object",
        "WORKOUTS.workouts": "workout object", "WORKOUT.workout": "workout object",
    ]
    /// Keys whose members are not the protocol's: the configuration's are moonrunner.yaml(5)'s.
    static let opaque: Set = ["CONFIG.config"]

    /// Each key of `json` as a dotted path under `section`; a list's members are named with the list's path.
    static func keys(of json: Any, in section: String, prefix: String, into found: inout [String: Set<String>]) {
        if let list = json as? [Any] {
            for element in list { keys(of: element, in: section, prefix: prefix, into: &found) }
            return
        }
        guard let object = json as? [String: Any] else { return }
        for (key, value) in object {
            let path = prefix.isEmpty ? key : prefix + "." + key
            found[section, default: []].insert(path)
            if opaque.contains(section + "." + path) { continue }
            if let other = objects[section + "." + path] {
                keys(of: value, in: other, prefix: "", into: &found)
            } else {
                keys(of: value, in: section, prefix: path, into: &found)
            }
        }
    }

    // MARK: - Samples, as the daemon sends them

    struct Sample: Sendable {
        let name: String
        let encoded: @Sendable () throws -> String
        let emptyMembers: @Sendable () throws -> [String]

        init<T: Codable & Sendable>(_ type: T.Type, _ json: String) {
            name = String(describing: type)
            encoded = { ReplyEncoder.line(try ReplyEncoder.decode(T.self, from: json)) }
            emptyMembers = { empties(try ReplyEncoder.decode(T.self, from: json), at: String(describing: type)) }
        }
    }

    /// The members of `value` left empty: nil, NaN (written as nothing) or an empty list.
    static func empties(_ value: Any, at path: String) -> [String] {
        if value is JSONValue { return [] }
        if let d = value as? Double, d.isNaN { return [path] }
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional:
            guard let some = mirror.children.first else { return [path] }
            return empties(some.value, at: path)
        case .collection:
            return mirror.children.isEmpty ? [path] : mirror.children.flatMap { empties($0.value, at: path + "[]") }
        case .struct:
            return mirror.children.flatMap { empties($0.value, at: path + "." + ($0.label ?? "?")) }
        default:
            return []
        }
    }

    static let session = #"{"id":12,"activity":"run","state":"stopped","start_time":1716000000,"end_time":1716003600,"distance_m":10000,"elapsed_s":3600,"moving_s":3500,"steps":10000,"interrupted":false}"#
    static let split = #"{"number":1,"distance_m":1000,"elapsed_s":330,"moving_s":320,"pace_s":320,"elevation_change_m":2,"partial":false}"#
    static let event = #"{"class":"EVENT","session":12,"event":"turn_ahead","time":1716000600,"detected_at":1716000600,"cause":"course","state":"recording","detail":"left","split":\#(split),"cue":{"kind":"left","name":"Elm Street","course_m":1600,"distance_m":60,"then":["right"]},"workout":{"index":2,"wkt_step_index":1,"repeat":1,"repeats":6,"name":"800s","notes":"relaxed","intensity":"interval","end":{"kind":"distance","value":800},"target":{"measure":"pace","low":4.167,"high":4.348,"zone":4},"steps":14,"measure":"pace","value":4.05,"summary":{"steps_done":13,"steps_skipped":1,"target_s":600,"in_target_s":522,"active_distance_m":4800,"active_moving_s":1128}}}"#
    static let run = #"{"session":12,"start_time":1716000000,"distance_m":10000,"moving_s":3500,"avg_speed_mps":2.86}"#
    static let badge = #"{"badge":"moon","name":"Moon","distance_m":1000,"information":"One small step","tier":"gold","earned":\#(run),"silver":\#(run),"gold":\#(run),"best":\#(run),"silver_speed_mps":2.7,"gold_speed_mps":2.9}"#
    static let course = #"{"id":3,"name":"Ridge","format":"gpx","created_at":1716000000,"length_m":8000,"climb_m":300,"descent_m":300,"points":800,"bounds":{"min_lat":41.3,"min_lon":2.0,"max_lat":41.5,"max_lon":2.2},"cues":[{"kind":"water","name":"Fountain","notes":"drinking water","course_m":4000,"lat":41.4,"lon":2.1,"offset_m":5,"off_course":false,"then":["left"],"found":false}]}"#
    static let workout = #"{"id":2,"name":"Tuesday","sport":"run","format":"text","created_at":1716000000,"steps":14,"text":"15m easy; 6x(800m @3:50-4:00/km, 90s rest); 10m easy","plan":[{"index":0,"wkt_step_index":0,"repeat":1,"repeats":1,"name":"Warm up","notes":"easy","intensity":"warmup","end":{"kind":"time","value":900},"target":{"measure":"hr","low":120,"high":140,"zone":2}}]}"#
    static let device = #"{"id":"2","name":"phone 2","paired_at":1716000000,"last_seen":1716000600,"last_address":"192.168.1.3"}"#
    static let status = #"""
        {"class":"STATUS","time":1716000000,"state":"recording","session":12,"activity":"run","elapsed_s":600,"moving_s":580,
        "distance_m":1500,"speed_mps":2.9,"pace_s_per_km":345,"avg_speed_mps":2.6,"max_speed_mps":3.4,"steps":1600,
        "cadence_spm":168,"elevation_gain_m":12,"elevation_loss_m":9,"climb_rate_m_per_h":120,"laps":1,
        "gps":{"health":"ok","grade":"best","fixes":600,"connects":1},
        "imu":{"health":"ok","samples":60000,"rejected":0,"bus_errors":0,"overflows":0,"fifo_resets":0,"reinitializations":0,"device":"MPU-6050 at 0x68 on /dev/i2c-1","last_error":"WHO_AM_I 0x42"},
        "baro":{"health":"ok","samples":6000,"rejected":1,"level_shifts":0,"bus_errors":0,"reinitializations":0,"device":"BMP280 at 0x76 on /dev/i2c-1","last_error":"stuck"},
        "altitude_source":"barometric","altitude_shares":{"barometric":0.9,"dem":0.05,"gps":0.05},
        "store":{"health":"ok","pending":3,"last_error":"disk full"},
        "last_transition":{"event":"start","time":1716000000,"cause":"command"},
        "calories_kcal":95,"next_badge":{"badge":"mercury","name":"Mercury","distance_m":3000,"left_m":1500},"units":"metric",
        "course":{"id":3,"name":"Ridge","length_m":8000,"progress_m":1400,"to_go_m":6600,"eta_s":2500,"distance_to_course_m":4,
                  "on_course":true,"bearing_to_course_deg":270,"finished":false,
                  "next_cue":{"kind":"left","name":"Elm Street","course_m":1600,"distance_m":200,"then":["right"]}},
        "workout":{"step":{"index":3,"wkt_step_index":1,"repeat":2,"repeats":6,"name":"800s","notes":"relaxed","intensity":"interval",
                   "end":{"kind":"distance","value":800},"target":{"measure":"pace","low":4.167,"high":4.348,"zone":4}},
                   "steps":14,"elapsed_s":95,"distance_m":410,"remaining":390,"value":4.2,"position":0.2,"alert":"target_low"},
        "home":{"distance_m":900,"bearing_deg":180},"destination":{"lat":41.4,"lon":2.1,"distance_m":3000,"bearing_deg":45,"arrived":false},
        "quiet":false,"calories_method":"acsm","hr_bpm":150,"hr_zone":3,"hr_state":"connected",
        "hr":{"health":"ok","device":"Polar H10","notifications":600,"malformed":0,"samples":600,"missing":0,"rejected":0,
              "rr_intervals":900,"rr_rejected":0,"connects":1,"last_error":"the strap disconnected"},"battery":{"health":"ok","percent":38.4,"volts":3.71,"current_a":0.62,"charging":false,"minutes_left":72,"critical":"5 %","source":"auto","device":"MAX17048 at 0x36 on /dev/i2c-1","readings":40,"jumps":1,"bus_errors":2,"reinitializations":1,"last_error":"x"},"id":"s"}
        """#
    static let sessionReply = #"""
        {"class":"SESSION","session":\#(session),
        "stats":{"activity":"run","start_time":1716000000,"elapsed_s":3600,"moving_s":3500,"distance_m":10000,"steps":10000,
                 "cadence_spm":170,"speed_mps":0,"max_speed_mps":4,"elevation_gain_m":50,"elevation_loss_m":50,"laps":1,"points":3500,
                 "rejected_fixes":3,"altitude_source":"dem","barometric_points":0,"dem_points":3400},
        "pauses":[{"start":1716001000,"end":1716001060,"detected_at":1716001005,"automatic":true}],"events":[\#(event)],"points":3500,
        "figures":{"calories_kcal":700,"calories_method":"heart_rate",
                   "heart_rate":{"avg_bpm":150,"max_bpm":180,"zone_s":[60,600,1800,900,140],"trimp":120,"coverage":0.98,"rr_intervals":9000},
                   "best_pace_s_per_km":320,"splits_km":[\#(split)],"splits_mi":[\#(split)],
                   "laps":[{"number":1,"start_time":1716000000,"distance_m":10000,"elapsed_s":3600,"moving_s":3500,"avg_speed_mps":2.86,
                            "max_speed_mps":4,"steps":10000,"cadence_spm":171,"trigger":"session_end"}]},
        "course":{"id":3,"name":"Ridge","finished":true},"id":12}
        """#

    static let samples: [Sample] = [
        Sample(VersionReply.self, #"{"class":"VERSION","release":"0.1.0","proto_major":1,"proto_minor":5,"id":"v"}"#),
        Sample(ErrorReply.self, #"{"class":"ERROR","code":"not_found","message":"no session 9","id":"e"}"#),
        Sample(StatusReply.self, status),
        Sample(EventReply.self, event),
        Sample(SessionsReply.self, #"{"class":"SESSIONS","sessions":[\#(session)],"id":"l"}"#),
        Sample(SessionReply.self, sessionReply),
        Sample(ExportReply.self, #"{"class":"EXPORT","session":12,"format":"gpx","media_type":"application/gpx+xml","encoding":"utf8","bytes":8142,"chunks":1,"id":12}"#),
        Sample(ExportDataReply.self, #"{"class":"EXPORT_DATA","session":12,"seq":0,"data":"<?xml","id":12}"#),
        Sample(BadgesReply.self, #"{"class":"BADGES","activity":"run","badges":[\#(badge)],"longest":\#(run),"session":12,"next":{"badge":"mercury","name":"Mercury","distance_m":3000,"left_m":1500},"id":"b"}"#),
        Sample(DeletedReply.self, #"{"class":"DELETED","session":12,"id":12}"#),
        Sample(ConfigReply.self, #"{"class":"CONFIG","config":{"socket":{"max_clients":64}},"id":"c"}"#),
        Sample(CoursesReply.self, #"{"class":"COURSES","courses":[\#(course)],"id":"cs"}"#),
        Sample(CourseReply.self, #"{"class":"COURSE","course":\#(course),"id":3}"#),
        Sample(CourseDeletedReply.self, #"{"class":"COURSE_DELETED","course":3,"id":3}"#),
        Sample(UploadReply.self, #"{"class":"COURSE_UPLOAD","seq":0,"received":2048,"bytes":8142,"chunks":4,"id":"u"}"#),
        Sample(UploadReply.self, #"{"class":"WORKOUT_UPLOAD","seq":0,"received":2046,"bytes":20431,"chunks":10,"id":"w"}"#),
        Sample(WorkoutsReply.self, #"{"class":"WORKOUTS","workouts":[\#(workout)],"id":"ws"}"#),
        Sample(WorkoutReply.self, #"{"class":"WORKOUT","workout":\#(workout),"id":2}"#),
        Sample(WorkoutDeletedReply.self, #"{"class":"WORKOUT_DELETED","workout":2,"id":2}"#),
        Sample(PairingReply.self, #"{"class":"PAIRING","code":"K7QM-2XPA-9F","expires_in_s":600,"urls":["http://192.168.1.2:8080/pair?code=K7QM2XPA9F"]}"#),
        Sample(DevicesReply.self, #"{"class":"DEVICES","devices":[\#(device)]}"#),
        Sample(RevokedReply.self, #"{"class":"REVOKED","device":\#(device)}"#),
    ]
}

/// The headings and list entries of an mdoc page: each `.It Sy KEY` under the
/// `.Ss` (or, where a section has none, the `.Sh`) it belongs to.
struct ManPage {
    var sections: [String: [String]] = [:]
    /// The `.Ss` headings of the sections that document replies and their objects.
    var replySections: Set<String> = []

    init(contentsOf url: URL) throws {
        self.init(text: try String(contentsOf: url, encoding: .utf8))
    }

    init(text: String) {
        var sh = "", current = ""
        for line in text.split(separator: "\n").map(String.init) {
            if line.hasPrefix(".Sh ") {
                sh = String(line.dropFirst(4))
                current = sh
            } else if line.hasPrefix(".Ss ") {
                current = String(line.dropFirst(4))
                sections[current, default: []] = sections[current] ?? []
                if sh == "REPLIES" || (sh.hasPrefix("THE WEB APP") && !current.hasPrefix("?")) { replySections.insert(current) }
            } else if line.hasPrefix(".It Sy "), let key = line.dropFirst(7).split(separator: " ").first {
                sections[current, default: []].append(String(key))
            }
        }
    }
}
