/// Where a terrain tile's postings lie: a regular grid of latitude and
/// longitude, rows from north to south and columns from west to east, each
/// value the elevation at a posting's centre. The pure index maths of both
/// formats: SRTM's `.hgt` (the grid follows from the name and the size) and
/// GeoTIFF (from its tags, `GeoTIFFGeoreference`).
public struct ElevationGrid: Sendable, Equatable {
    public var rows: Int
    public var columns: Int
    /// Latitude and longitude of the centre of the north-west posting (row 0, column 0), degrees.
    public var north: Double
    public var west: Double
    /// Degrees from one row to the next (southward) and one column to the next (eastward).
    public var rowSpacing: Double
    public var columnSpacing: Double

    public init(rows: Int, columns: Int, north: Double, west: Double, rowSpacing: Double, columnSpacing: Double) {
        self.rows = rows
        self.columns = columns
        self.north = north
        self.west = west
        self.rowSpacing = rowSpacing
        self.columnSpacing = columnSpacing
    }

    /// The grid of an SRTM `.hgt` tile of `byteCount` bytes: 3601 × 3601
    /// big-endian 16-bit postings at 1″ or 1201 × 1201 at 3″, the first at
    /// the north-west corner, the last row and column shared with the
    /// neighbours. Nil when the size is neither.
    public static func hgt(cell: TileCell, byteCount: Int) -> ElevationGrid? {
        for side in [3601, 1201] where byteCount == side * side * 2 {
            let spacing = 1 / Double(side - 1)
            return ElevationGrid(rows: side, columns: side, north: Double(cell.south + 1), west: Double(cell.west),
                                 rowSpacing: spacing, columnSpacing: spacing)
        }
        return nil
    }

    /// The sizes an `.hgt` may have, for the message when it has another.
    public static let hgtSizes = [3601 * 3601 * 2, 1201 * 1201 * 2]

    /// Southernmost and easternmost posting centres.
    public var south: Double { north - Double(rows - 1) * rowSpacing }
    public var east: Double { west + Double(columns - 1) * columnSpacing }

    /// The spacing between rows in arc-seconds (1 for SRTM 1″ and GLO-30, 3 for SRTM 3″ and GLO-90).
    public var arcSeconds: Double { rowSpacing * 3600 }

    /// The fractional row and column of a point, nil when it lies outside the postings
    /// (a point between this tile's last posting and the next tile's first is the
    /// neighbour's to answer, or nobody's).
    public func position(latitude: Double, longitude: Double) -> (row: Double, column: Double)? {
        let r = (north - latitude) / rowSpacing
        let c = (longitude - west) / columnSpacing
        // A rounding error's worth beyond the edge still counts as on it.
        let slack = 1e-9
        guard r >= -slack, c >= -slack, r <= Double(rows - 1) + slack, c <= Double(columns - 1) + slack else { return nil }
        return (min(max(r, 0), Double(rows - 1)), min(max(c, 0), Double(columns - 1)))
    }
}

/// Bilinear interpolation between the four postings around a point.
public enum Bilinear {
    /// `v00` north-west, `v01` north-east, `v10` south-west, `v11` south-east;
    /// `u` the fraction eastward, `v` southward (0–1). A void corner (NaN) is
    /// left out and the others weighted up, as long as the valid corners
    /// carry at least half the weight: nearer a void than that, the point is
    /// a void too (NaN) and its elevation comes from elsewhere.
    public static func interpolate(_ v00: Double, _ v01: Double, _ v10: Double, _ v11: Double,
                                   u: Double, v: Double) -> Double {
        let w00 = (1 - u) * (1 - v), w01 = u * (1 - v), w10 = (1 - u) * v, w11 = u * v
        if v00.isFinite && v01.isFinite && v10.isFinite && v11.isFinite {
            return w00 * v00 + w01 * v01 + w10 * v10 + w11 * v11
        }
        var sum = 0.0, weight = 0.0
        for (value, w) in [(v00, w00), (v01, w01), (v10, w10), (v11, w11)] where value.isFinite {
            sum += w * value
            weight += w
        }
        return weight >= 0.5 ? sum / weight : .nan
    }
}
