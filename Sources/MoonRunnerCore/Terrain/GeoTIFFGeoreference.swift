/// A GeoTIFF's georeferencing, from the few numbers of its tags, as the
/// elevation grid it describes.
///
/// * ModelPixelScaleTag (33550): degrees per column and per row.
/// * ModelTiepointTag (33922): a raster point (i, j) and its longitude, latitude.
/// * GeoKeyDirectoryTag (34735): geographic (GTModelTypeGeoKey 1024 = 2) on
///   WGS 84 (GeographicTypeGeoKey 2048 = 4326, or absent); GTRasterTypeGeoKey
///   (1025): the tie point is a pixel's corner (1, PixelIsArea) or its centre
///   (2, PixelIsPoint, as Copernicus writes them).
///
/// GLO-30 / GLO-90 tiles are 3600 / 1200 rows, with fewer columns beyond 50°
/// of latitude; the grid follows from the tags whatever they are.
public struct GeoTIFFGeoreference: Sendable, Equatable {
    public var pixelScale: [Double]
    public var tiepoint: [Double]
    public var geoKeys: [UInt16]

    public init(pixelScale: [Double], tiepoint: [Double], geoKeys: [UInt16]) {
        self.pixelScale = pixelScale
        self.tiepoint = tiepoint
        self.geoKeys = geoKeys
    }

    /// GeoKey ids (GeoTIFF 1.0, section 6.2).
    static let modelType: UInt16 = 1024
    static let rasterType: UInt16 = 1025
    static let geographicType: UInt16 = 2048

    /// The value of a short GeoKey held in the directory itself, nil when absent.
    func key(_ id: UInt16) -> UInt16? {
        guard geoKeys.count >= 4 else { return nil }
        let count = Int(geoKeys[3])
        for k in 0..<count {
            let at = 4 + 4 * k
            guard at + 3 < geoKeys.count else { return nil }
            // Location 0: the value is the entry's last short.
            if geoKeys[at] == id, geoKeys[at + 1] == 0 { return geoKeys[at + 3] }
        }
        return nil
    }

    /// The postings of a `width` × `height` raster; what is missing or not
    /// geographic WGS 84 is said in the error.
    public func grid(width: Int, height: Int) throws(GeoreferenceError) -> ElevationGrid {
        guard width >= 2, height >= 2 else { throw .unusable("\(width) × \(height) postings") }
        guard pixelScale.count >= 2 else { throw .missing("ModelPixelScaleTag (33550)") }
        guard tiepoint.count >= 6 else { throw .missing("ModelTiepointTag (33922)") }
        guard !geoKeys.isEmpty else { throw .missing("GeoKeyDirectoryTag (34735)") }
        if let model = key(Self.modelType), model != 2 {
            throw .unusable("model type \(model) is not geographic latitude and longitude (2)")
        }
        if let datum = key(Self.geographicType), datum != 4326 {
            throw .unusable("geographic system EPSG:\(datum) is not WGS 84 (4326)")
        }
        let sx = pixelScale[0], sy = pixelScale[1]
        guard sx > 0, sy > 0, sx.isFinite, sy.isFinite else { throw .unusable("pixel scale \(sx), \(sy)") }
        let (i, j, x, y) = (tiepoint[0], tiepoint[1], tiepoint[3], tiepoint[4])
        // PixelIsArea (the default): raster (0, 0) is the first pixel's corner, its centre half a pixel in.
        let centre = key(Self.rasterType) == 2 ? 0.0 : 0.5
        let west = x + (centre - i) * sx
        let north = y - (centre - j) * sy
        guard (-180.5...180.5).contains(west), (-90.5...90.5).contains(north) else {
            throw .unusable("tie point \(x), \(y) is not a longitude and latitude")
        }
        return ElevationGrid(rows: height, columns: width, north: north, west: west, rowSpacing: sy, columnSpacing: sx)
    }
}

/// Why a GeoTIFF's georeferencing cannot be used.
public enum GeoreferenceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A tag the georeferencing needs is not there.
    case missing(String)
    /// It is there and says something else than a latitude-longitude grid on WGS 84.
    case unusable(String)

    public var description: String {
        switch self {
        case let .missing(tag): return "no georeferencing: \(tag) is missing"
        case let .unusable(why): return "unusable georeferencing: \(why)"
        }
    }
}
