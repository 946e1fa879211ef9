import Glibc

/// Pressure altitude in the ICAO standard atmosphere (troposphere): the
/// height at which the standard atmosphere has this pressure.
///
/// The weather moves the real sea-level pressure away from 1013.25 hPa, so
/// the absolute value is off by tens of metres; differences between two
/// readings a few minutes apart are right to centimetres, which is what the
/// fusion takes from it.
public enum BarometricAltitude {
    /// Standard sea-level pressure, Pa.
    public static let seaLevelPressure = 101_325.0

    /// Metres above the standard sea level for `pressure` Pa.
    @inlinable
    public static func altitude(pressure: Double) -> Double {
        44_330.77 * (1 - pow(pressure / seaLevelPressure, 0.190_263))
    }

    /// Inverse of `altitude(pressure:)`, Pa at `altitude` metres.
    @inlinable
    public static func pressure(altitude: Double) -> Double {
        seaLevelPressure * pow(1 - altitude / 44_330.77, 1 / 0.190_263)
    }
}
