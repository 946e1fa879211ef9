import MoonRunnerCore

/// One tile's postings, whatever its format: the grid they lie on and the
/// value of any posting (NaN in a void or where the file cannot be read).
protocol ElevationTile: Sendable {
    var grid: ElevationGrid { get }
    func posting(row: Int, column: Int) -> Double
}

extension ElevationTile {
    /// The elevation at a point inside the grid, bilinear between the four
    /// postings around it; NaN when it lies outside or in a void.
    func elevation(latitude: Double, longitude: Double) -> Double {
        guard let (r, c) = grid.position(latitude: latitude, longitude: longitude) else { return .nan }
        let r0 = min(Int(r), grid.rows - 2), c0 = min(Int(c), grid.columns - 2)
        return Bilinear.interpolate(posting(row: r0, column: c0), posting(row: r0, column: c0 + 1),
                                    posting(row: r0 + 1, column: c0), posting(row: r0 + 1, column: c0 + 1),
                                    u: c - Double(c0), v: r - Double(r0))
    }
}
