import MoonRunnerCore

/// A tile found in the DEM folder, as `moonrunner dem` lists it.
public struct DEMTileInfo: Sendable, Equatable, Codable {
    public enum Format: String, Sendable, Codable {
        case hgt
        case hgtZip = "hgt.zip"
        case geoTIFF = "geotiff"
    }

    /// The file's name in the folder.
    public var file: String
    public var format: Format
    /// The whole-degree cell it covers (`N41E002`); nil when neither its name nor its georeferencing says.
    public var cell: String?
    /// Its postings' bounds (degrees: south, west, north, east of the first and last postings) and
    /// their spacing (arc-seconds between rows); nil for a tile that cannot be read.
    public var bounds: [Double]?
    public var arcSeconds: Double?
    public var rows: Int?
    public var columns: Int?
    /// Why it is not used (nil when it is): what is wrong with the file, or that another tile of
    /// the same cell with finer postings answers instead.
    public var problem: String?
    /// True when lookups in its cell use it.
    public var used: Bool

    private enum CodingKeys: String, CodingKey {
        case file, format, cell, bounds, arcSeconds = "arc_seconds", rows, columns, problem, used
    }
}
