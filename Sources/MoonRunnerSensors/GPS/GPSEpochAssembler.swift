import MoonRunnerCore

/// Turns gpsd's stream of reports into one `GPSFix` per epoch.
///
/// gpsd 3.22 can send two TPVs for the same epoch (the first with its own
/// position-difference speed, the second with the receiver's Doppler speed
/// and course) and repeats a TPV when only satellite data changed: the last
/// TPV of an epoch wins, stamped with the arrival of the first (when the
/// epoch arrived: the wait for its second report is not latency of the fix).
/// The GST of the same epoch (1σ errors) is merged in,
/// whether it came before or after the TPV. Used by the live client and by
/// the trace reader so both see the same fixes.
public struct GPSEpochAssembler: Sendable {
    private var pending: (fix: GPSFix, at: Double)?
    /// TPVs of the pending epoch so far.
    public private(set) var pendingReports = 0
    private var gst: (time: Double, lat: Double, lon: Double, alt: Double)?

    public init() {}

    /// Adds one TPV that arrived at engine-clock `at`; returns the epochs it completes.
    public mutating func addTPV(_ fix: GPSFix, at: Double) -> [(fix: GPSFix, at: Double)] {
        var done: [(fix: GPSFix, at: Double)] = []
        if let p = pending {
            if fix.time.isFinite && p.fix.time == fix.time {
                // The epoch arrived with its first report: later ones only refine it.
                pending = (merged(fix), p.at)
                pendingReports += 1
                return done
            }
            done.append(p)
            pending = nil
            pendingReports = 0
        }
        if fix.time.isFinite {
            pending = (merged(fix), at)
            pendingReports = 1
        } else {
            // No time (no fix yet, or gpsd's first fix): nothing to pair it with.
            done.append((fix, at))
        }
        return done
    }

    /// Adds a GST report (1σ errors in metres) for receiver time `time`.
    public mutating func addGST(time: Double, lat: Double, lon: Double, alt: Double) {
        gst = (time, lat, lon, alt)
        if let p = pending, p.fix.time == time {
            pending = (merged(p.fix), p.at)
        }
    }

    /// An epoch is in progress (a TPV not yet handed out).
    public var isPending: Bool { pending != nil }

    /// Hands out the epoch in progress (when gpsd has gone quiet, or at the end of a trace).
    public mutating func flush() -> (fix: GPSFix, at: Double)? {
        defer {
            pending = nil
            pendingReports = 0
        }
        return pending
    }

    private func merged(_ fix: GPSFix) -> GPSFix {
        guard let g = gst, g.time == fix.time else { return fix }
        var f = fix
        f.stdLat = g.lat
        f.stdLon = g.lon
        f.stdAlt = g.alt
        return f
    }
}
