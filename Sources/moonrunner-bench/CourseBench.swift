import Foundation
import MoonRunnerCore

/// What the course-matching benchmark measured.
struct CourseBenchResult {
    var kilometres: Double
    /// µs per fix: mean, 99th percentile, worst.
    var mean: Double
    var p99: Double
    var worst: Double
    var fixes: Int
    var offCourse: Int
    var vertices: Int
    /// µs per fix through the navigator (the matcher and the cue guide, a cue every 250 m): mean, p99.
    var navigatorMean: Double
    var navigatorP99: Double
    var cues: Int
    var said: Int
}

/// Matches a run along a synthetic 50 km course (ten laps of a 5 km loop, a
/// vertex every ~10 m: every place has ten passes), 1 Hz fixes at 3 m/s
/// scattered by 4 m, with 2 km run on a road 300 m outside the loop;
/// thread CPU time per fix.
func benchCourseMatching() -> CourseBenchResult {
    let origin = LocalTangentPlane(originLat: 47.37, originLon: 8.54)
    // A 5 km loop: a rounded rectangle 1.5 km x 0.95 km with a wiggle.
    func loop(_ s: Double) -> (Double, Double) {
        let a = 2 * Double.pi * s / 5000
        return (750 * cos(a) + 40 * sin(7 * a), 480 * sin(a) + 25 * cos(5 * a))
    }
    var vertices: [CoursePoint] = []
    var length = 0.0
    var k = 0
    var previous = loop(0)
    while length < 50_200 {
        let (e, n) = loop(Double(k % 500) * 10)
        length += hypot(e - previous.0, n - previous.1)
        previous = (e, n)
        let ll = origin.unproject(east: e, north: n)
        vertices.append(CoursePoint(latitude: ll.lat, longitude: ll.lon))
        k += 1
    }
    guard let geometry = try? CourseGeometry(vertices) else {
        print("course bench: the synthetic course was refused")
        exit(1)
    }
    var matcher = CourseMatcher(geometry: geometry)
    var rng = SplitMix(seed: 7)
    let speed = 3.0
    let fixes = Int(geometry.length / speed)
    var lat = [Double](), lon = [Double]()
    lat.reserveCapacity(fixes)
    lon.reserveCapacity(fixes)
    for i in 0..<fixes {
        let p = geometry.position(atProgress: Double(i) * speed)
        var (e, n) = origin.project(lat: p.latitude, lon: p.longitude)
        // Lap 4: 700 s (2 km) on a road 300 m outside the loop, then back.
        if i >= 7000 && i < 7700 { e += 300 }
        e += rng.gaussian() * 4
        n += rng.gaussian() * 4
        let ll = origin.unproject(east: e, north: n)
        lat.append(ll.lat)
        lon.append(ll.lon)
    }
    var each = [Double](repeating: 0, count: fixes)
    var offCourse = 0
    let start = cpuNow()
    for i in 0..<fixes {
        let t0 = cpuNow()
        let (m, _) = matcher.update(latitude: lat[i], longitude: lon[i], sigma: 4, speed: speed, at: Double(i))
        each[i] = cpuNow() - t0
        if m.offCourse { offCourse += 1 }
    }
    let total = cpuNow() - start
    each.sort()
    let nav = benchNavigation(geometry, lat: lat, lon: lon, speed: speed)
    return CourseBenchResult(kilometres: geometry.length / 1000, mean: total / Double(fixes) * 1e6,
                             p99: each[fixes * 99 / 100] * 1e6, worst: (each.last ?? 0) * 1e6, fixes: fixes,
                             offCourse: offCourse, vertices: vertices.count, navigatorMean: nav.mean,
                             navigatorP99: nav.p99, cues: nav.cues, said: nav.said)
}

/// The same run through the navigator, which also says the cues (a turn
/// every 250 m): µs per fix, mean and p99, and how many cues were said.
func benchNavigation(_ geometry: CourseGeometry, lat: [Double], lon: [Double],
                     speed: Double) -> (mean: Double, p99: Double, cues: Int, said: Int) {
    let cues = stride(from: 250.0, to: geometry.length, by: 250).map { m -> CourseCue in
        let p = geometry.position(atProgress: m)
        return CourseCue(kind: Int(m / 250) % 2 == 0 ? .left : .right, courseM: m, latitude: p.latitude, longitude: p.longitude)
    }
    var navigator = Navigator(course: FollowedCourse(id: nil, name: "bench", geometry: geometry, cues: cues), destination: nil)
    var said = 0
    var each = [Double](repeating: 0, count: lat.count)
    let start = cpuNow()
    for i in lat.indices {
        let t0 = cpuNow()
        navigator.update(latitude: lat[i], longitude: lon[i], sigma: 4, speed: speed, heading: .nan,
                         distance: Double(i) * speed, at: Double(i)) { e in
            if e.kind == .turnAhead || e.kind == .turnNow { said += 1 }
        }
        each[i] = cpuNow() - t0
    }
    let total = cpuNow() - start
    each.sort()
    return (total / Double(lat.count) * 1e6, each[lat.count * 99 / 100] * 1e6, cues.count, said)
}
