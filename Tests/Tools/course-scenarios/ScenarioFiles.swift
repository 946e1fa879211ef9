import Foundation
import MoonRunnerCore
import MoonRunnerTestSupport

/// A scenario run as the files the labelled courses come in: gpsd's JSON as
/// `gpspipe -w` prints it (a TPV and a GST per second), the course as a GPX
/// track, and the truth per second.
enum ScenarioFiles {
    static func gpsd(_ run: RejoinRun) -> String { gpsd(run.fixes) }

    static func gpsd(_ fixes: [GPSFix]) -> String {
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var out = #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"# + "\n"
        for f in fixes {
            let time = iso.string(from: Date(timeIntervalSince1970: f.time))
            out += String(format: #"{"class":"TPV","device":"sim","mode":3,"time":"%@","lat":%.9f,"lon":%.9f,"alt":%.1f,"eph":%.1f,"epv":%.1f,"speed":%.3f,"track":%.2f}"#,
                          time, f.latitude, f.longitude, f.altitude, f.eph, f.epv, f.speed, f.track) + "\n"
            out += String(format: #"{"class":"GST","device":"sim","time":"%@","lat":%.2f,"lon":%.2f,"alt":%.2f}"#,
                          time, f.stdLat, f.stdLon, f.stdAlt) + "\n"
        }
        return out
    }

    static func gpx(_ run: RejoinRun) -> String {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="course-scenarios" xmlns="http://www.topografix.com/GPX/1/1">
              <trk><name>\(run.scenario.name)</name><trkseg>

            """
        for p in run.course {
            out += String(format: "    <trkpt lat=\"%.9f\" lon=\"%.9f\"/>\n", p.latitude, p.longitude)
        }
        return out + "  </trkseg></trk>\n</gpx>\n"
    }

    /// `t_s`, `progress_m` (null on the runner's own path), `distance_to_course_m`
    /// (from the part they should be on) and `off_course` per second, with the
    /// scenario's parameters and key instants.
    static func truth(_ run: RejoinRun) throws -> Data {
        struct Truth: Encodable {
            var scenario: RejoinScenario
            var t0_unix: Double
            var leave_progress_m, rejoin_progress_m: Double
            var first_off_s, back_s, near_s, meet_s: Double?
            var t_s: [Double]
            var progress_m: [Double?]
            var distance_to_course_m: [Double]
            var off_course: [Bool]
            var along: [Bool]
        }
        let t = Truth(scenario: run.scenario, t0_unix: RejoinRun.epoch, leave_progress_m: run.leave,
                      rejoin_progress_m: run.rejoin, first_off_s: run.firstOff, back_s: run.back, near_s: run.near,
                      meet_s: run.meet, t_s: run.truth.map(\.t), progress_m: run.truth.map(\.progress),
                      distance_to_course_m: run.truth.map { ($0.distance * 10).rounded() / 10 },
                      off_course: run.truth.map(\.off),
                      along: run.truth.map(\.along))
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return try e.encode(t)
    }
}
