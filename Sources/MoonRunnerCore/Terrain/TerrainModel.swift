/// What a terrain model says about one point of the Earth.
public enum TerrainReading: Sendable, Equatable {
    /// The ground's elevation, metres above mean sea level (the DEMs' geoid,
    /// EGM96 for SRTM and EGM2008 for Copernicus: what gpsd calls MSL, to
    /// within a metre or two), from postings `arcSeconds` apart (1″ ≈ 30 m).
    case elevation(Double, arcSeconds: Double = 1)
    /// No tile covers the point; the cell it lies in (`N41E002`) says which
    /// tile would.
    case noTile(TileCell)
    /// A tile covers it but holds no value there (a void: radar shadow,
    /// water, a corrupt stretch), or the tile could not be read.
    case void(TileCell)

    /// The elevation, NaN when there is none.
    public var metres: Double {
        if case let .elevation(h, _) = self { return h }
        return .nan
    }

    /// The spacing of the postings that gave the elevation, arc-seconds (NaN without one).
    public var arcSeconds: Double {
        if case let .elevation(_, spacing) = self { return spacing }
        return .nan
    }
}

/// The ground's elevation from a digital elevation model (DEM), looked up
/// under each position of the track.
///
/// The seam between the pure core and the tiles on disk: the engine asks it
/// synchronously for every accepted position (reading a tile is reading a
/// file, a few µs), so an implementation keeps what it read and never blocks
/// for long. Tests give the core a function of latitude and longitude.
public protocol TerrainModel: Sendable {
    func elevation(latitude: Double, longitude: Double) -> TerrainReading
    /// False while the model has no tile at all (the configured folder is missing or empty): the
    /// session is then as without one, and no `terrain_lost` says what the wearer never had.
    var hasTiles: Bool { get }
}

extension TerrainModel {
    public var hasTiles: Bool { true }
}
