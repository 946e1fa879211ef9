import Foundation
import Testing
@testable import MoonRunnerCore
import MoonRunnerTestSupport

/// A counter and what it has counted so far.
struct ClimbTally {
    var counter = ClimbCounter()
    var gain = 0.0, loss = 0.0
    /// What each altitude added, in order.
    var added: [(gain: Double, loss: Double)] = []

    mutating func feed(_ h: Double, band: Double) {
        let r = counter.update(h, band: band)
        gain += r.gain
        loss += r.loss
        added.append(r)
    }
}

/// A rolling profile starting at a bottom: crests of `rise` metres, `period` samples apart, as a
/// raised cosine (a sample falls on every top and every bottom, so the climb is exactly `rise` a crest).
func rolling(_ i: Int, rise: Double, period: Int, base: Double = 500) -> Double {
    base + rise * (1 - cos(2 * .pi * Double(i) / Double(period))) / 2
}

@Suite("Climb counter")
struct ClimbCounterTests {
    @Test("a climb counts from the bottom it started at once it has risen a band, then each metre as it comes")
    func climbFromItsBottom() {
        var t = ClimbTally()
        for h in [100.0, 99, 100, 101, 102, 104, 105] { t.feed(h, band: 3) }
        // Confirmed at 102, three metres above the bottom at 99: all of it counts at once.
        #expect(t.added.map(\.gain) == [0, 0, 0, 0, 3, 2, 1])
        #expect(t.loss == 0)
    }

    @Test("a descent counts from the top it started at: the last metres of a climb below the band are not lost")
    func topAndBottomCount() {
        var t = ClimbTally()
        for h in stride(from: 100.0, through: 110, by: 1) { t.feed(h, band: 3) }
        for h in stride(from: 109.0, through: 100, by: -1) { t.feed(h, band: 3) }
        for h in stride(from: 101.0, through: 104, by: 1) { t.feed(h, band: 3) }
        #expect(t.gain == 14 && t.loss == 10, "gain \(t.gain), loss \(t.loss)")
        // The descent is confirmed at 107, a band below the top, and counts the three metres from 110.
        #expect(t.added[13].loss == 3)
    }

    @Test("wiggles smaller than the band add nothing, however many", arguments: [0.25, 2.0, 3.0])
    func wigglesAddNothing(band: Double) {
        var rng = GPSTestRandom(seed: 71)
        var t = ClimbTally()
        // 10 000 altitudes spread over 98 % of the band, around a level.
        for _ in 0..<10_000 { t.feed(250 + 0.49 * band * (2 * Double.random(in: 0..<1, using: &rng) - 1), band: band) }
        #expect(t.gain == 0 && t.loss == 0)
    }

    @Test("noise inside the band on a real climb adds at most its own spread, once at each end")
    func noiseOnAClimb() {
        var rng = GPSTestRandom(seed: 72)
        var t = ClimbTally()
        let band = 2.0, spread = 1.9
        // Flat, 50 m up over 500 samples, flat, 50 m down, flat; uniform noise of 1.9 m peak to peak.
        for i in 0..<2000 {
            let x = Double(i)
            let h = 300 + 50 * min(max((x - 250) / 500, 0), 1) - 50 * min(max((x - 1000) / 500, 0), 1)
            t.feed(h + spread * (Double.random(in: 0..<1, using: &rng) - 0.5), band: band)
        }
        // Each swing counts from the noisiest bottom to the noisiest top: the noise at most once a turn.
        #expect(t.gain >= 50 && t.gain <= 50 + spread, "gain \(t.gain)")
        #expect(t.loss >= 50 - spread && t.loss <= 50 + spread, "loss \(t.loss)")
    }

    @Test("a profile of many crests counts every top and bottom: at most a centimetre lost a crest",
          arguments: [0.25, 2.0, 3.0, 8.0])
    func manyCrests(band: Double) {
        var t = ClimbTally()
        let crests = 20, period = 300
        for i in 0...(crests * period) { t.feed(rolling(i, rise: 10, period: period), band: band) }
        // The counter that moved its reference to the last counted sample lost up to a band a turn here.
        #expect(abs(t.gain - 10 * Double(crests)) <= 0.01 * Double(crests), "gain \(t.gain)")
        #expect(abs(t.loss - 10 * Double(crests)) <= 0.01 * Double(crests), "loss \(t.loss)")
    }

    @Test("a band that changes from one altitude to the next still counts each swing in full")
    func changingBand() {
        var t = ClimbTally()
        // The GPS band follows each fix's vertical error: here between 3 and 6 m.
        for i in 0...(10 * 400) { t.feed(rolling(i, rise: 15, period: 400), band: 3 + 3 * Double(i % 7) / 6) }
        #expect(abs(t.gain - 150) <= 0.1 && abs(t.loss - 150) <= 0.1, "gain \(t.gain), loss \(t.loss)")
    }

    @Test("a restart makes the next altitude the reference: nothing before it counts, and no climb at the switch")
    func restart() {
        var t = ClimbTally()
        for h in stride(from: 100.0, through: 110, by: 1) { t.feed(h, band: 3) }
        t.counter.restart()
        t.feed(150, band: 3)
        t.feed(149, band: 3)
        #expect(t.gain == 10 && t.loss == 0)
        t.feed(146, band: 3)
        #expect(t.loss == 4, "the descent counts from the highest altitude since the restart")
    }
}

@Suite("The climb counter under each altitude source")
struct ClimbSourceTests {
    enum Source: String, CaseIterable, Sendable { case barometer, gps, terrain }

    /// Flat for two minutes, then crests of 20 m, 600 s apart (1.8 km at a run's 3 m/s).
    static let crests = 12
    static func profile(_ t: Double) -> Double {
        500 + 20 * (1 - cos(2 * .pi * max(t - 120, 0) / 600)) / 2
    }

    @Test("a smooth rolling profile counts every top and bottom on each source: at most a centimetre lost a crest",
          arguments: Source.allCases)
    func rollingOnEachSource(source: Source) {
        var config = AltitudeFusionConfig()
        // A barometer without noise repeats its reading at every top and bottom: not a frozen sensor here.
        config.frozenAfter = .infinity
        var fusion = AltitudeFusion(config: config)
        var gain = 0.0, loss = 0.0
        var counted: [Double] = []
        // Ends three quarters into the last crest, on its way down (no flat end for GPS's smoothing to overshoot).
        for i in 0..<(120 + Self.crests * 600 - 150) {
            let t = Double(i)
            if source == .barometer {
                for k in 0..<10 {
                    let tk = t + Double(k) / 10
                    fusion.ingest(BaroSample(t: tk, pressure: BarometricAltitude.pressure(altitude: Self.profile(tk)),
                                             temperature: 30))
                }
            }
            // GPS altitude 15 m off the ground where it is only the barometer's level.
            let u = fusion.gps(altitude: Self.profile(t) + (source == .gps ? 0 : 15), sigma: 1, at: t + 0.95,
                               moving: true, terrain: source == .terrain ? Self.profile(t) : .nan, moved: 1)
            gain += u.gain
            loss += u.loss
            if i >= 60 { counted.append(u.shape) }
        }
        #expect(counted.allSatisfy { abs($0 - Self.profile(0)) <= 25 }, "every altitude counted is the source's own")
        // The climb and descent of the altitude the counter was given, every wiggle included.
        let steps = zip(counted, counted.dropFirst()).map { $1 - $0 }
        let up = steps.map { max($0, 0) }.reduce(0, +), down = steps.map { max(-$0, 0) }.reduce(0, +)
        let allowed = 0.01 * Double(Self.crests)
        #expect(gain >= up - allowed && gain <= up + allowed, "gain \(gain) m of \(up)")
        #expect(loss >= down - allowed && loss <= down + allowed, "loss \(loss) m of \(down)")
        switch source {
        case .barometer, .terrain:
            // The terrain is the profile itself, and the barometer's medians (5 s, then 9 s: `BaroAltitudeFilter`)
            // round each top and bottom off by millimetres: 20 m a crest.
            #expect(abs(up - 20 * Double(Self.crests)) <= allowed, "the \(source) climbed \(up) m")
        case .gps:
            // GPS altitude is smoothed first (`GPSAltitudeTracker`), which reshapes the crests a little.
            #expect(abs(up - 20 * Double(Self.crests)) <= 0.15 * 20 * Double(Self.crests), "GPS climbed \(up) m")
        }
    }
}
