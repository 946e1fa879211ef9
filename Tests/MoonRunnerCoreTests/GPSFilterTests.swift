import Foundation
import Testing
@testable import MoonRunnerCore
import MoonRunnerTestSupport

/// Runs a filter over fixes and sums what it reports.
struct GPSFilterRun {
    var filter = GPSFilter()
    var distance = 0.0
    var outputs: [GPSFilterOutput] = []

    @discardableResult
    mutating func feed(_ fix: GPSFix, stationary: Bool = false) -> GPSFilterOutput {
        let out = filter.process(fix, at: fix.time.isFinite ? fix.time : 0, stationary: stationary)
        distance += out.distance
        outputs.append(out)
        return out
    }
}

@Suite("GPS filter")
struct GPSFilterTests {
    /// A straight run north-east at `speed` for `seconds`, after `standing` seconds still.
    static func straightRun(seed: UInt64, speed: Double = 3, seconds: Int = 600, standing: Int = 10,
                            doppler: Bool = true) -> (fixes: [GPSFix], truth: Double) {
        var rx = SimulatedGPSReceiver(seed: seed)
        rx.doppler = doppler
        let dir = (east: sin(0.7), north: cos(0.7))
        var fixes: [GPSFix] = []
        for i in 0..<(standing + seconds) {
            let moving = i >= standing
            let s = moving ? Double(i - standing) * speed : 0
            let v = moving ? speed : 0
            fixes.append(rx.fix(t: Double(i), east: s * dir.east, north: s * dir.north,
                                ve: v * dir.east, vn: v * dir.north))
        }
        return (fixes, Double(seconds - 1) * speed)
    }

    @Test("a straight run with noise measures its distance within 2 %", arguments: [1, 2, 3] as [UInt64])
    func straightLine(seed: UInt64) {
        let (fixes, truth) = Self.straightRun(seed: seed)
        var run = GPSFilterRun()
        for f in fixes { run.feed(f) }
        #expect(abs(run.distance - truth) / truth < 0.02, "distance \(run.distance) vs \(truth)")
        #expect(run.filter.isMoving)
        // The filtered point sits closer to the truth than the raw scatter would.
        if let p = run.outputs.last?.point {
            let (e, n) = SimulatedGPSReceiver.plane.project(lat: p.latitude, lon: p.longitude)
            let s = truth
            #expect(hypot(e - s * sin(0.7), n - s * cos(0.7)) < 10)
            #expect(abs(p.speed - 3) < 0.5)
            #expect(abs(p.course - 0.7 * 180 / .pi) < 10)
        }
    }

    @Test("without Doppler speed the distance still comes out within 5 %")
    func straightLineWithoutDoppler() {
        let (fixes, truth) = Self.straightRun(seed: 4, doppler: false)
        var run = GPSFilterRun()
        for f in fixes { run.feed(f) }
        #expect(abs(run.distance - truth) / truth < 0.05, "distance \(run.distance) vs \(truth)")
    }

    @Test("standing still for ten minutes adds (almost) nothing", arguments: [5, 6, 7] as [UInt64])
    func standingStill(seed: UInt64) {
        let (fixes, _) = Self.straightRun(seed: seed, seconds: 0, standing: 600)
        var run = GPSFilterRun()
        for f in fixes { run.feed(f) }
        // Summing the raw fixes gives hundreds of metres here.
        var raw = 0.0
        for (a, b) in zip(fixes, fixes.dropFirst()) {
            raw += Geodesy.distance(lat1: a.latitude, lon1: a.longitude, lat2: b.latitude, lon2: b.longitude)
        }
        #expect(raw > 300)
        #expect(run.distance < 5, "phantom distance \(run.distance) m")
        #expect(!run.filter.isMoving)
    }

    @Test("standing still without Doppler, or with a speed gpsd derived from positions, adds little")
    func standingStillWithoutDoppler() {
        let (fixes, _) = Self.straightRun(seed: 8, seconds: 0, standing: 600, doppler: false)
        var run = GPSFilterRun()
        for f in fixes { run.feed(f) }
        #expect(run.distance < 10, "phantom distance \(run.distance) m")

        // gpsd's own position-difference "speed": metres per second of pure noise.
        var derived = GPSFilterRun()
        var previous: GPSFix?
        for var f in fixes {
            if let p = previous {
                f.speed = Geodesy.distance(lat1: p.latitude, lon1: p.longitude, lat2: f.latitude, lon2: f.longitude)
                f.track = Geodesy.bearing(lat1: p.latitude, lon1: p.longitude, lat2: f.latitude, lon2: f.longitude)
            }
            previous = f
            derived.feed(f)
        }
        #expect(derived.distance < 10, "phantom distance \(derived.distance) m with derived speeds")
    }

    @Test("the IMU's stillness hint stops drift from counting even with a moving Doppler")
    func stationaryHint() {
        var rx = SimulatedGPSReceiver(seed: 9)
        var run = GPSFilterRun()
        for i in 0..<120 {
            // The device drifts slowly and its Doppler says 1 m/s (e.g. a bad receiver).
            let f = rx.fix(t: Double(i), east: Double(i) * 0.3, north: 0, ve: 1, vn: 0)
            run.feed(f, stationary: true)
        }
        #expect(run.distance == 0)
    }

    @Test("a multipath jump is rejected and the distance stays right")
    func outlierRejected() {
        var (fixes, truth) = Self.straightRun(seed: 10)
        for i in 300..<303 {
            var f = fixes[i]
            f.latitude += 70 / 111_000   // 70 m north, for three seconds
            fixes[i] = f
        }
        var run = GPSFilterRun()
        for f in fixes { run.feed(f) }
        let rejected = run.outputs[300..<303].filter { $0.rejection == .outlier || $0.rejection == .tooFast }
        #expect(rejected.count == 3)
        #expect(abs(run.distance - truth) / truth < 0.02, "distance \(run.distance) vs \(truth)")
    }

    @Test("a filter that locked onto a bad track re-acquires the real one")
    func reacquires() {
        var (fixes, truth) = Self.straightRun(seed: 11)
        // The first 40 s of fixes sit 250 m off (a receiver that settled
        // badly), then the solution snaps to the truth and stays there.
        for i in 0..<50 {
            var f = fixes[i]
            f.longitude += 250 / (111_000 * cos(47 * Double.pi / 180))
            fixes[i] = f
        }
        var run = GPSFilterRun()
        for f in fixes { run.feed(f) }
        let rejectedAfterSnap = run.outputs[50..<70].filter { $0.rejection != nil }.count
        #expect(rejectedAfterSnap > 0 && rejectedAfterSnap < 12)
        let last = run.outputs.last?.point
        #expect(last != nil)
        if let p = last {
            let (e, n) = SimulatedGPSReceiver.plane.project(lat: p.latitude, lon: p.longitude)
            #expect(hypot(e - truth * sin(0.7), n - truth * cos(0.7)) < 10)
        }
        // The 250 m snap is not distance.
        #expect(abs(run.distance - truth) / truth < 0.03, "distance \(run.distance) vs \(truth)")
    }

    @Test("0,0 is never accepted")
    func nullIsland() {
        var run = GPSFilterRun()
        let (fixes, _) = Self.straightRun(seed: 12, seconds: 5, standing: 5)
        for f in fixes { run.feed(f) }
        let out = run.feed(GPSFix(time: 1_700_000_100, mode: 3, latitude: 0, longitude: 0, eph: 5, speed: 0))
        #expect(out.rejection == .nullIsland)
        #expect(out.point == nil)
    }

    @Test("the first fix after a start and after a loss of fix is dropped")
    func firstFixDropped() {
        var run = GPSFilterRun()
        let (fixes, _) = Self.straightRun(seed: 13, seconds: 0, standing: 20)
        #expect(run.feed(fixes[0]).rejection == .firstFix)
        #expect(run.feed(fixes[1]).point != nil)
        #expect(run.feed(fixes[2]).rejection == nil)
        #expect(run.feed(GPSFix(time: fixes[3].time, mode: 1, latitude: .nan, longitude: .nan)).rejection == .noFix)
        #expect(run.filter.signal == .none)
        #expect(run.feed(fixes[4]).rejection == .firstFix)
        #expect(run.feed(fixes[5]).rejection == nil)
    }

    @Test("duplicates, out-of-order and stale fixes are refused")
    func duplicatesAndOrder() {
        var run = GPSFilterRun()
        let (fixes, _) = Self.straightRun(seed: 14, seconds: 0, standing: 10)
        for f in fixes[0..<5] { run.feed(f) }
        #expect(run.feed(fixes[4]).rejection == .duplicate)
        #expect(run.feed(fixes[2]).rejection == .outOfOrder)
        // Arrives 30 s after its receiver time while the others arrived at once.
        let late = run.filter.process(fixes[5], at: fixes[5].time + 30, stationary: false)
        #expect(late.rejection == .stale)
    }

    @Test("live clocks: a timeless first fix on the engine clock does not block the receiver-timed ones")
    func timelessFirstFix() {
        let (fixes, truth) = Self.straightRun(seed: 23, seconds: 200)
        var filter = GPSFilter()
        let engineStart = 1_800_000_000.0   // the engine clock is not the receiver's
        var timeless = fixes[0]
        timeless.time = .nan
        #expect(filter.process(timeless, at: engineStart, stationary: false).rejection == .noTime)
        #expect(filter.process(timeless, at: engineStart + 0.5, stationary: false).rejection == .noTime)
        var distance = 0.0
        var refused = 0
        for (i, f) in fixes.enumerated().dropFirst() {
            let out = filter.process(f, at: engineStart + 1 + Double(i) + 0.3, stationary: false)
            distance += out.distance
            if out.rejection == .outOfOrder || out.rejection == .stale { refused += 1 }
        }
        #expect(refused == 0)
        #expect(abs(distance - truth) / truth < 0.03, "distance \(distance) vs \(truth)")
        // Once the offset is known, a timeless fix is placed on the receiver's clock.
        var again = fixes[fixes.count - 1]
        again.time = .nan
        let placed = filter.process(again, at: engineStart + 1 + Double(fixes.count) + 0.3, stationary: false)
        #expect(placed.rejection != .noTime && placed.rejection != .outOfOrder && placed.rejection != .stale)
        #expect(placed.point?.fixTime == fixes[fixes.count - 1].time + 1)
    }

    @Test("a receiver clock that jumps is followed after a few fixes; one late fix is refused")
    func clockJump() {
        let (fixes, truth) = Self.straightRun(seed: 24, seconds: 300)
        var run = GPSFilterRun()
        for f in fixes[0..<150] { run.feed(f) }
        // One fix that arrives 30 s late is stale.
        let late = run.filter.process(fixes[150], at: fixes[150].time + 30, stationary: false)
        #expect(late.rejection == .stale)
        // Then the receiver's clock steps back by a day and stays there.
        var outOfOrder = 0
        for var f in fixes[151...] {
            let arrival = f.time
            f.time -= 86_400
            let out = run.filter.process(f, at: arrival, stationary: false)
            run.distance += out.distance
            if out.rejection == .outOfOrder { outOfOrder += 1 }
        }
        #expect(outOfOrder >= 1 && outOfOrder <= 5)
        #expect(run.filter.isMoving)
        #expect(abs(run.distance - truth) / truth < 0.05, "distance \(run.distance) vs \(truth)")
    }

    @Test("poor accuracy is refused: GST when present, else eph")
    func poorAccuracy() {
        var run = GPSFilterRun()
        let (fixes, _) = Self.straightRun(seed: 15, seconds: 0, standing: 10)
        for f in fixes[0..<5] { run.feed(f) }
        var bad = fixes[5]
        bad.stdLat = 25
        bad.stdLon = 25
        #expect(run.feed(bad).rejection == .poorAccuracy)
        #expect(run.filter.signal == .better)
        var noGST = fixes[6]
        noGST.stdLat = .nan
        noGST.stdLon = .nan
        noGST.eph = 400   // gpsd DOP-based: about 160 m real 95 %
        #expect(run.feed(noGST).rejection == .poorAccuracy)
        #expect(run.filter.signal == .average)
        #expect(run.feed(fixes[7]).rejection == nil)
        #expect(run.filter.signal == .best)
    }

    @Test("a short gap on a straight line is bridged and counted")
    func shortGapBridged() {
        let (all, _) = Self.straightRun(seed: 16, speed: 1.4, seconds: 300)
        // 15 s without a fix (an underpass) in the middle of the walk.
        let fixes = all.enumerated().filter { !(150..<165).contains($0.offset) }.map(\.element)
        var run = GPSFilterRun()
        for f in fixes { run.feed(f) }
        let truth = 299 * 1.4
        #expect(abs(run.distance - truth) / truth < 0.03, "distance \(run.distance) vs \(truth)")
        #expect(!run.outputs.dropFirst(3).contains { $0.point?.newSegment == true })
    }

    @Test("a long gap with a far exit starts a new segment and counts no straight line")
    func longGapNewSegment() {
        var rx = SimulatedGPSReceiver(seed: 17)
        var run = GPSFilterRun()
        for i in 0..<120 {
            run.feed(rx.fix(t: Double(i), east: Double(i) * 3, north: 0, ve: 3, vn: 0))
        }
        let before = run.distance
        // Two minutes without fixes, then 3 km further: no runner did that.
        let out = run.feed(rx.fix(t: 240, east: 3_000, north: 0, ve: 3, vn: 0))
        #expect(out.distance == 0)
        #expect(out.point?.newSegment == true)
        run.feed(rx.fix(t: 241, east: 3_003, north: 0, ve: 3, vn: 0))
        #expect(run.distance - before < 10)

        // The same gap with an exit a walking pace explains is bridged.
        var run2 = GPSFilterRun()
        var rx2 = SimulatedGPSReceiver(seed: 18)
        for i in 0..<120 {
            run2.feed(rx2.fix(t: Double(i), east: Double(i) * 1.4, north: 0, ve: 1.4, vn: 0))
        }
        let before2 = run2.distance
        let out2 = run2.feed(rx2.fix(t: 180, east: 179 * 1.4, north: 0, ve: 1.4, vn: 0))
        #expect(abs(out2.distance - 61 * 1.4) < 15, "bridged \(out2.distance)")
        #expect(out2.point?.newSegment == false)
        #expect(run2.distance > before2 + 60)
    }

    @Test("a one-minute gap on a running track counts the pace kept, not the chord")
    func gapOnATrack() {
        var rx = SimulatedGPSReceiver(seed: 22)
        var run = GPSFilterRun()
        let radius = 40.0, speed = 3.0
        for i in 0..<300 {
            let t = Double(i)
            if (100..<160).contains(i) {
                run.feed(GPSFix(time: 1_700_000_000 + t, mode: 1, latitude: .nan, longitude: .nan))
                continue
            }
            let a = speed * t / radius
            run.feed(rx.fix(t: t, east: radius * sin(a), north: radius * cos(a),
                            ve: speed * cos(a), vn: -speed * sin(a)))
        }
        let truth = 299 * speed
        #expect(abs(run.distance - truth) / truth < 0.03, "distance \(run.distance) vs \(truth)")
    }

    @Test("breakSegment drops the step across a pause but keeps tracking")
    func breakSegment() {
        let (fixes, truth) = Self.straightRun(seed: 19, seconds: 200)
        var run = GPSFilterRun()
        for f in fixes[0..<100] { run.feed(f) }
        run.filter.breakSegment()
        let out = run.feed(fixes[100])
        #expect(out.distance == 0)
        #expect(out.point?.newSegment == true)
        for f in fixes[101...] { run.feed(f) }
        #expect(abs(run.distance - (truth - 3)) / truth < 0.03)
    }

    @Test("the config decodes with missing keys left at their defaults")
    func configDecoding() throws {
        let json = #"{"maxAccuracy": 25, "moveSpeed": 1.0}"#
        let cfg = try JSONDecoder().decode(GPSFilterConfig.self, from: Data(json.utf8))
        #expect(cfg.maxAccuracy == 25)
        #expect(cfg.moveSpeed == 1.0)
        #expect(cfg.maxSpeed == GPSFilterConfig().maxSpeed)
        let again = try JSONDecoder().decode(GPSFilterConfig.self, from: JSONEncoder().encode(cfg))
        #expect(again == cfg)
    }
}
