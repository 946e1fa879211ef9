import Testing
@testable import MoonRunnerCore

/// A wearer fed to the detector at 20 Hz: IMU samples, the steps it
/// detects, and a fix a second with its Doppler progress.
struct PauseFeed {
    var detector: AutoPauseDetector
    /// Samples so far: the time is counted, not summed, so that fixes fall on whole seconds.
    var n = 0
    var t: Double { Double(n) / 20 }
    var decisions: [AutoPauseDetector.Decision] = []

    init(confirmsSteps: Bool) {
        var c = AutoPauseConfig()
        c.gpsConfirmsSteps = confirmsSteps
        detector = AutoPauseDetector(config: c)
        detector.restart(at: 0)
    }

    /// `seconds` with a step every `stepEvery` s (none when nil), the body
    /// `still` or not, and fixes at `speed` m/s (progress at speed from `since`).
    mutating func run(_ seconds: Double, stepEvery: Double?, still: Bool, speed: Double, since: Double? = nil) {
        let end = t + seconds
        var nextStep = t + (stepEvery ?? .infinity)
        while t < end - 1e-9 {
            n += 1
            detector.imu(still: still, rotation: 0, at: t)
            if t >= nextStep - 1e-9 {
                if let d = detector.step(at: t) { decisions.append(d) }
                nextStep += stepEvery ?? .infinity
            }
            if n % 20 == 0 {
                let atSpeed = speed >= 0.3
                let progress = GPSProgress(creeping: since != nil, since: since ?? t, lastMotion: t, atSpeed: atSpeed)
                if let d = detector.gps(moving: speed >= 1, speed: speed, progress: progress, at: t) { decisions.append(d) }
            }
            if let d = detector.tick(at: t) { decisions.append(d) }
        }
    }
}

@Suite("Auto-pause: the evidence")
struct AutoPauseTests {
    @Test("a runner shifting at a stop does not hold the run when the GPS vets steps: the pause goes back to the last fix at speed")
    func shiftingAtAStop() throws {
        var vetted = PauseFeed(confirmsSteps: true)
        vetted.run(100, stepEvery: 0.35, still: false, speed: 3.2, since: 0)
        vetted.run(15, stepEvery: 0.6, still: false, speed: 0.1)    // hands on knees, false steps
        guard case let .pause(since, at, _) = try #require(vetted.decisions.first) else {
            Issue.record("no pause: \(vetted.decisions)")
            return
        }
        #expect(since >= 100 && since <= 101, "since \(since)")
        #expect(at <= 110, "decided at \(at): a body that moves without steps waits out `pauseDwell`")
        // Every step counting, the same shifting holds the run until it stops.
        var plain = PauseFeed(confirmsSteps: false)
        plain.run(100, stepEvery: 0.35, still: false, speed: 3.2, since: 0)
        plain.run(15, stepEvery: 0.6, still: false, speed: 0.1)
        #expect(plain.decisions.isEmpty, "\(plain.decisions)")
    }

    @Test("a resume by GPS speed alone goes back to the first fix of progress, not the one at the veto speed")
    func resumeBySpeed() throws {
        // A hand-held device: the body still throughout, no steps.
        var f = PauseFeed(confirmsSteps: true)
        f.run(20, stepEvery: nil, still: true, speed: 0.1)
        guard case .pause = try #require(f.decisions.first) else {
            Issue.record("no pause: \(f.decisions)")
            return
        }
        f.run(1, stepEvery: nil, still: true, speed: 0.6, since: 21)
        f.run(1, stepEvery: nil, still: true, speed: 1.8, since: 21)
        f.run(5, stepEvery: nil, still: true, speed: 3.0, since: 21)
        #expect(f.decisions.last == .resume(since: 21, at: 25, cause: .gpsSpeed), "fast from 23 s, for 2 s")
    }

    @Test("steps the GPS held back that resume a pause count: the next moment does not pause it again")
    func heldStepsResume() throws {
        var f = PauseFeed(confirmsSteps: true)
        f.run(100, stepEvery: 0.5, still: false, speed: 1.4, since: 0)
        f.run(20, stepEvery: nil, still: true, speed: 0.1)                // stands: paused
        f.run(2, stepEvery: 0.5, still: true, speed: 0.1)                 // sets off before the Doppler says so
        f.run(10, stepEvery: 0.5, still: true, speed: 0.6, since: 122)    // a slow start, the body quiet
        #expect(f.decisions.count == 2, "\(f.decisions)")
        guard case let .resume(since, at, cause) = try #require(f.decisions.last) else {
            Issue.record("no resume: \(f.decisions)")
            return
        }
        #expect(cause == .steps && since >= 120 && since <= 122 && at <= 123.5, "\(since) \(at) \(cause)")
    }

    @Test("a climb counts only without an IMU and on foot, and the engine asks before fitting one")
    func climbOnlyWithoutIMU() {
        var feed = PauseFeed(confirmsSteps: false)
        feed.run(3, stepEvery: 0.5, still: false, speed: 1.2)
        #expect(!feed.detector.takesClimb(at: feed.t), "IMU samples within the last second")
        #expect(feed.detector.climbing(since: feed.t - 10, at: feed.t) == nil)
        #expect(feed.detector.takesClimb(at: feed.t + 1.5), "no sample for 1.5 s: the IMU is gone")
        var ride = AutoPauseConfig()
        ride = Activity.ride.profile.autoPauseConfig(ride)
        let onWheels = AutoPauseDetector(config: ride)
        #expect(ride.wheels != nil && !onWheels.takesClimb(at: 100), "on wheels the speed decides")
    }
}
