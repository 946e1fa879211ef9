import MoonRunnerCore

/// What the GPS side is doing, as `STATUS` reports it.
public enum GPSHealth: String, Sendable, Codable, CaseIterable {
    /// Not yet connected to gpsd.
    case connecting
    /// Connected, gpsd reports no fix (mode < 2).
    case noFix = "nofix"
    /// Fixes are arriving.
    case ok
    /// gpsd is gone or silent for more than 5 s.
    case lost
}

/// What the gpsd client hands to the daemon.
public enum GPSUpdate: Sendable {
    /// One epoch's fix, stamped with the engine-clock instant it arrived.
    case fix(GPSFix, at: Double)
    case health(GPSHealth)
}
