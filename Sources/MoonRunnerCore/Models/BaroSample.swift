/// One barometer reading: static pressure and the sensor's own temperature.
///
/// A plain value with no references, so a stream of them never allocates.
public struct BaroSample: Sendable, Equatable {
    /// Reading instant in seconds (trace clock or the engine clock).
    public var t: Double
    /// Compensated static pressure, Pa.
    public var pressure: Double
    /// Die temperature, °C (NaN when unknown).
    public var temperature: Double

    public init(t: Double, pressure: Double, temperature: Double = .nan) {
        self.t = t
        self.pressure = pressure
        self.temperature = temperature
    }

    /// Pressures outside this range (Pa) are impossible on foot: 300 hPa is the
    /// summit of Everest, 1100 hPa below the Dead Sea in a high. The Bosch
    /// barometers' own operating range is the same.
    public static let plausiblePressure = 30_000.0...110_000.0

    /// True when the time is finite and the pressure is physically possible.
    @inlinable public var isPlausible: Bool {
        t.isFinite && pressure.isFinite && BaroSample.plausiblePressure.contains(pressure)
    }
}

/// Where an altitude came from.
public enum AltitudeSource: String, Sendable, Codable, CaseIterable {
    /// The barometer's shape on the level GPS gives it (or the terrain model, where it covers the track).
    case barometric
    /// The terrain model (a DEM) under the track.
    case dem
    /// GPS altitude alone.
    case gps
}
