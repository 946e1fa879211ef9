import MoonRunnerCore

/// The words on the route map and the charts, in the reader's language.
/// `SVGRouteWriter` draws with the English ones; the web app passes its
/// own phrase table's, so a phone set to 简体中文 sees the same drawing
/// with Chinese words. Units are added by the charts themselves.
public struct ChartLabels: Sendable, Equatable {
    public var pace = "Pace"
    /// After the pace chart's title, before the unit: "taller is faster".
    public var paceHint = "taller is faster"
    public var paceAxis = "Pace"
    public var elevation = "Elevation"
    public var elevationAxis = "Elevation"
    public var climb = "climb"
    public var descent = "descent"
    public var cadence = "Cadence"
    public var cadenceAxis = "Cadence"
    /// The cadence unit, steps per minute.
    public var stepsPerMinute = "spm"
    public var distanceAxis = "Distance"
    public var average = "avg"
    public var slow = "slow"
    public var fast = "fast"
    public var noDistance = "no distance recorded"
    public var noElevation = "no elevation data"
    public var noCadence = "no steps recorded"
    public var noTrack = "no GPS track recorded"
    /// The map's marks: start, finish and where the GPS fix was lost.
    public var start = "S"
    public var finish = "F"
    public var gpsLost = "GPS lost"
    /// A split bar's label for the last, shorter split ("0.43 km" follows it).
    public var partialSplit = "last"

    public init() {}

    public static let english = ChartLabels()

    /// "min/km" or "min/mi".
    static func paceUnit(_ units: UnitSystem) -> String { "min/\(units.distanceSymbol)" }

    /// "m" or "ft": elevation is shown in the wearer's units.
    static func heightUnit(_ units: UnitSystem) -> String { units == .metric ? "m" : "ft" }

    /// Metres in one elevation display unit.
    static func metresPerHeightUnit(_ units: UnitSystem) -> Double { units == .metric ? 1 : 0.3048 }
}
