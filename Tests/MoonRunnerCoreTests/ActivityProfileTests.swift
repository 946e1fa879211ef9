import Foundation
import Testing
@testable import MoonRunnerCore
import MoonRunnerTestSupport

@Suite("Activities: one profile each")
struct ActivityProfileTests {
    @Test("the five activities by their wire names; a session recorded before them decodes as the run or walk it was")
    func names() throws {
        #expect(Activity.allCases.map(\.rawValue) == ["run", "trail_run", "walk", "hike", "ride"])
        let old = try JSONDecoder().decode(SessionStats.self, from: Data(#"{"activity":"walk","distance_m":1200}"#.utf8))
        #expect(old.activity == .walk && old.distance == 1200)
        let none = try JSONDecoder().decode(SessionStats.self, from: Data(#"{"distance_m":5}"#.utf8))
        #expect(none.activity == .run)
    }

    @Test("run, trail run and walk keep the configured gates and dwells, their steps vetted by the GPS; a ride opens the gates to 25 m/s")
    func gates() {
        var base = GPSFilterConfig()
        base.maxSpeed = 10.27
        for a in [Activity.run, .trailRun, .walk, .hike] {
            #expect(a.profile.gpsConfig(base) == base, "\(a)")
        }
        let ride = Activity.ride.profile.gpsConfig(base)
        #expect(ride.maxSpeed == 25 && ride.accelerationNoise == 2.5)
        var pausing = AutoPauseConfig()
        pausing.gpsConfirmsSteps = false
        var vetted = pausing
        vetted.gpsConfirmsSteps = true
        for a in [Activity.run, .trailRun, .walk] { #expect(a.profile.autoPauseConfig(pausing) == vetted, "\(a)") }
    }

    @Test("a hike waits at least 15 s without motion (6 s still with the IMU); a longer configured dwell wins")
    func hikeDwell() {
        var base = AutoPauseConfig()
        #expect(Activity.hike.profile.autoPauseConfig(base).pauseDwell == 15)
        #expect(Activity.hike.profile.autoPauseConfig(base).stillDwell == 6)
        base.pauseDwell = 30
        #expect(Activity.hike.profile.autoPauseConfig(base).pauseDwell == 30)
    }

    @Test("each activity names its sport as the peers read it: FIT sport/sub_sport, TCX Sport, GPX type")
    func sports() {
        let names = Activity.allCases.map { a in
            let s = a.profile.sport
            return "\(a.rawValue): \(s.fitSport)/\(s.fitSubSport) \(s.tcx) \(s.gpx)"
        }
        #expect(names == ["run: 1/0 Running running", "trail_run: 1/3 Running trail_running", "walk: 11/0 Other walking",
                          "hike: 17/0 Other hiking", "ride: 2/7 Biking cycling"])
    }

    @Test("a ride shows a speed, splits every 5 km or 5 mi and has its own badges; steps are counted on foot only")
    func display() {
        #expect(Activity.allCases.filter { $0.profile.showsSpeed } == [.ride])
        #expect(Activity.allCases.filter { !$0.profile.countsSteps } == [.ride])
        #expect(Activity.ride.profile.splitLength(.metric) == 5000)
        #expect(Activity.ride.profile.splitLength(.imperial) == 5 * 1609.344)
        #expect(Activity.run.profile.splitLength(.metric) == 1000)
        #expect(Activity.ride.profile.ladder == .rides && Activity.hike.profile.ladder == .solarSystem)
        #expect(Activity.allCases.filter { $0.profile.tellsClimbRate } == [.hike])
        #expect(Formatting.rate(speed: 25 / 3.6, .metric, for: Activity.ride.profile) == "25.0 km/h")
        #expect(Formatting.rate(speed: 1000 / 312.0, .metric, for: Activity.hike.profile) == "5:12 min/km")
    }
}

@Suite("Activities: the session engine")
struct ActivityEngineTests {
    @Test("a rider's steps are not counted: an IMU that sees a stepping rhythm on a ride adds no step and no cadence")
    func rideNoSteps() throws {
        var run = EngineRun()
        try run.command { e, emit in try e.start(activity: .ride, at: 0, emit: emit) }
        run.feed(Synth.walking(from: 0, to: 30))
        #expect(run.engine.stats.steps == 0 && run.engine.stats.cadence == 0)
        #expect(!run.outputs.contains { if case .step = $0 { true } else { false } })
    }

    @Test("a ride pauses below 1 m/s after 3 s, back-dated to the last fix at speed, and resumes on two fixes at speed from the first",
          arguments: [true, false])
    func ridePause(withIMU: Bool) throws {
        var run = EngineRun()
        try run.command { e, emit in try e.start(activity: .ride, at: 0, emit: emit) }
        // 8 m/s for 60 s, a light for 30 s (Doppler noise 0.1-0.2 m/s), 8 m/s again.
        var north = 0.0
        for t in 0..<120 {
            let v = t < 60 || t >= 90 ? 8.0 : 0.1 + 0.05 * Double(t % 3)
            if withIMU { run.feed(Synth.still(from: Double(t), to: Double(t) + 1)) }
            north += t < 60 || t >= 90 ? 8 : 0
            run.fix(Synth.fix(Double(t), north: north, speed: v))
        }
        let pause = try #require(run.engine.pauses.first)
        #expect(pause.start == 59 && pause.detectedAt == 62, "the last fix at speed; 3 s later")
        #expect(pause.end == 90, "the first of two fixes at speed")
        #expect(run.engine.pauses.count == 1 && run.engine.state == .recording)
    }

    @Test("moving uphill is moving: GPS only, a hiker at 0.4-0.6 m/s through Doppler noise never pauses in 10 minutes, and the distance is counted",
          arguments: [Activity.hike, .run])
    func slowClimb(activity: Activity) throws {
        var run = EngineRun()
        var receiver = SimulatedGPSReceiver(seed: 30)
        receiver.speedNoise = 0.14  // 0.1 m/s per axis: the simulations' and a real receiver's
        let t0 = 1_700_000_000.0  // the simulated receiver's clock
        try run.command { e, emit in try e.start(activity: activity, at: t0, emit: emit) }
        var north = 0.0
        for t in 0..<600 {
            let v = 0.5 + 0.1 * sin(Double(t) / 40)
            north += v
            run.fix(receiver.fix(t: Double(t), east: 0, north: north, ve: 0, vn: v, altitude: 400 + north * 0.3))
        }
        #expect(run.engine.pauses.isEmpty, "\(run.engine.pauses)")
        // The distance within 5 %: 1 Hz noise of 1.5 m and 3 m of wander on a 300 m climb.
        #expect(abs(run.engine.stats.distance / north - 1) < 0.05, "\(run.engine.stats.distance) of \(north) m")
    }

    @Test("GPS only, a receiver standing still with 0.1-0.2 m/s of Doppler noise pauses, back-dated to where the wearer stopped",
          arguments: [Activity.hike, .walk])
    func standingStill(activity: Activity) throws {
        var run = EngineRun()
        var receiver = SimulatedGPSReceiver(seed: 31)
        receiver.speedNoise = 0.14
        let t0 = 1_700_000_000.0
        try run.command { e, emit in try e.start(activity: activity, at: t0, emit: emit) }
        var north = 0.0
        for t in 0..<240 {
            let v = t < 120 ? 0.6 : 0
            north += v
            run.fix(receiver.fix(t: Double(t), east: 0, north: north, ve: 0, vn: v))
        }
        let pause = try #require(run.engine.pauses.first)
        // The last fix at speed is the one before the stop, or a noise fix just after it.
        #expect(abs(pause.start - (t0 + 120)) <= 3, "\(pause)")
        #expect(run.engine.pauses.count == 1)
    }
}
