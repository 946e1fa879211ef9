import FoundationEssentials
import MoonRunnerCore

/// The file formats a session can be exported to, for `?EXPORT` and the CLI.
public enum ExportFormat: String, Sendable, Codable, CaseIterable {
    case gpx, tcx, fit, geojson, csv, svg

    public var fileExtension: String { rawValue }

    public var mimeType: String {
        switch self {
        case .gpx: return "application/gpx+xml"
        case .tcx: return "application/vnd.garmin.tcx+xml"
        case .fit: return "application/vnd.ant.fit"
        case .geojson: return "application/geo+json"
        case .csv: return "text/csv"
        case .svg: return "image/svg+xml"
        }
    }

    /// True for formats that are not text (send as base64 over a text protocol).
    public var isBinary: Bool { self == .fit }

    /// The session in this format. `units` matters for the SVG only.
    public func export(_ session: ExportSession, units: UnitSystem = .metric) -> Data {
        switch self {
        case .gpx: return GPXWriter.write(session)
        case .tcx: return TCXWriter.write(session)
        case .fit: return FITWriter.write(session)
        case .geojson: return GeoJSONWriter.write(session)
        case .csv: return CSVWriter.write(session)
        case .svg: return SVGRouteWriter.write(session, units: units)
        }
    }
}
