import Foundation
import MoonRunnerCore

/// (c) The altitude fusion's cost: `hours` of a 10 Hz barometer (noise, a
/// rolling profile) and 1 Hz GPS altitudes through `AltitudeFusion`, inputs
/// prepared in memory first so that only the fusion is timed (thread CPU time).
/// Returns nanoseconds per barometer reading and per fix, and the share of
/// one core the fusion takes at those rates.
func benchAltitudeFusion(hours: Double) -> (perReading: Double, perFix: Double, coreShare: Double, gain: Double) {
    let seconds = Int(hours * 3600)
    var rng = SplitMix(seed: 7)
    var readings: [BaroSample] = []
    readings.reserveCapacity(seconds * 10)
    var fixes: [(t: Double, h: Double)] = []
    fixes.reserveCapacity(seconds)
    for i in 0..<seconds {
        let t = Double(i)
        let h = 300 + 30 * sin(t / 400)
        for k in 0..<10 {
            let p = BarometricAltitude.pressure(altitude: h) + 1.3 * rng.gaussian()
            readings.append(BaroSample(t: t + Double(k) / 10, pressure: p, temperature: 30))
        }
        fixes.append((t + 0.95, h + 8 * rng.gaussian()))
    }
    var fusion = AltitudeFusion()
    var gain = 0.0
    // Readings only, then readings and fixes interleaved as the engine feeds them.
    let t0 = cpuNow()
    for r in readings { fusion.ingest(r) }
    let readingsOnly = cpuNow() - t0
    fusion = AltitudeFusion()
    let t1 = cpuNow()
    var next = 0
    for f in fixes {
        while next < readings.count && readings[next].t <= f.t {
            fusion.ingest(readings[next])
            next += 1
        }
        gain += fusion.gps(altitude: f.h, sigma: 8, at: f.t, moving: true).gain
    }
    let both = cpuNow() - t1
    let perReading = readingsOnly / Double(readings.count) * 1e9
    let perFix = max(0, both - readingsOnly) / Double(fixes.count) * 1e9
    // At 10 readings and one fix a second:
    let share = (10 * perReading + perFix) * 1e-9 * 100
    return (perReading, perFix, share, gain)
}
