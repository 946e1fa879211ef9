import FoundationEssentials
import Glibc
import MoonRunnerCore
import Synchronization

/// The terrain model a runner drops on the Pi: a folder of SRTM `.hgt`
/// (1″ or 3″, zipped or not) and Copernicus GeoTIFF tiles, each covering a
/// whole degree.
///
/// The folder is read when made: every file that looks like a tile is
/// checked (its size against its name, its zip directory, its GeoTIFF tags)
/// and a bad one is listed with what is wrong and skipped; where two tiles
/// cover the same cell the finer answers. Lookups need no lock but each
/// tile's own (a few µs, see `moonrunner-bench`); a point between the last
/// postings of one Copernicus tile and the first of the next (they share no
/// edge) takes the missing corners from the neighbour.
public final class DEMDirectory: TerrainModel {
    public let path: String
    /// What was found, sorted by cell and name.
    public let tiles: [DEMTileInfo]
    private let byCell: [TileCell: any ElevationTile]

    /// Reads the folder at `path`; deflated `.hgt.zip` entries are unpacked into `cacheDirectory`
    /// once (nil: they are listed as unusable), and GeoTIFF blocks decoded there once (nil: each
    /// window is decoded when needed).
    public init(path: String, cacheDirectory: String?) {
        self.path = path
        var found: [(info: DEMTileInfo, cell: TileCell?, tile: (any ElevationTile)?)] = []
        for name in Self.names(in: path) {
            guard let format = Self.format(of: name) else { continue }
            found.append(Self.open(path + "/" + name, name: name, format: format, cacheDirectory: cacheDirectory))
        }
        var byCell: [TileCell: any ElevationTile] = [:]
        var chosen: [TileCell: Int] = [:]
        for (i, f) in found.enumerated() {
            guard let cell = f.cell, let tile = f.tile else { continue }
            if let j = chosen[cell], let other = found[j].tile, other.grid.rowSpacing <= tile.grid.rowSpacing { continue }
            chosen[cell] = i
            byCell[cell] = tile
        }
        var infos = found.map(\.info)
        for (i, f) in found.enumerated() where f.tile != nil {
            let cell = f.cell ?? TileCell(south: 0, west: 0)
            infos[i].used = chosen[cell] == i
            if !infos[i].used {
                infos[i].problem = "another tile of \(cell) has finer postings: \(infos[chosen[cell] ?? i].file)"
            }
        }
        tiles = infos.sorted { ($0.cell ?? "", $0.file) < ($1.cell ?? "", $1.file) }
        self.byCell = byCell
    }

    /// Cells with a usable tile.
    public var cells: [TileCell] { byCell.keys.sorted() }
    /// True when any tile was usable (see `TerrainModel.hasTiles`).
    public var hasTiles: Bool { !byCell.isEmpty }

    public func elevation(latitude: Double, longitude: Double) -> TerrainReading {
        let cell = TileCell(latitude: latitude, longitude: longitude)
        guard latitude.isFinite, longitude.isFinite, let tile = byCell[cell] ?? onEdge(of: cell, latitude, longitude) else {
            return .noTile(cell)
        }
        var h = tile.elevation(latitude: latitude, longitude: longitude)
        if h.isNaN, tile.grid.position(latitude: latitude, longitude: longitude) == nil {
            h = acrossEdge(tile, latitude: latitude, longitude: longitude)
        }
        return h.isFinite ? .elevation(h, arcSeconds: tile.grid.arcSeconds) : .void(cell)
    }

    /// A point on a cell's south or west edge (whole degrees) also lies on the last row or column
    /// of the tile south or west of it (SRTM's tiles share their edges).
    private func onEdge(of cell: TileCell, _ latitude: Double, _ longitude: Double) -> (any ElevationTile)? {
        let southern = latitude == Double(cell.south), western = longitude == Double(cell.west)
        for (s, w) in [(southern, western), (southern, false), (false, western)] where s || w {
            let other = TileCell(south: cell.south - (s ? 1 : 0), west: cell.west - (w ? 1 : 0))
            if let tile = byCell[other], tile.grid.position(latitude: latitude, longitude: longitude) != nil { return tile }
        }
        return nil
    }

    /// Bilinear between a tile's last postings and its east, south and south-east neighbours' first
    /// ones (same spacing only); NaN when a neighbour is missing.
    private func acrossEdge(_ tile: any ElevationTile, latitude: Double, longitude: Double) -> Double {
        let g = tile.grid
        let r = (g.north - latitude) / g.rowSpacing, c = (longitude - g.west) / g.columnSpacing
        let r0 = Int(r.rounded(.down)), c0 = Int(c.rounded(.down))
        func posting(_ row: Int, _ column: Int) -> Double {
            if row < g.rows && column < g.columns { return tile.posting(row: row, column: column) }
            let lat = g.north - Double(row) * g.rowSpacing, lon = g.west + Double(column) * g.columnSpacing
            // The posting lies on the neighbour's first row or column: look it up there.
            let next = TileCell(latitude: lat + g.rowSpacing / 2, longitude: lon + g.columnSpacing / 2)
            guard let other = byCell[next], abs(other.grid.rowSpacing - g.rowSpacing) < 1e-12,
                  let (nr, nc) = other.grid.position(latitude: lat, longitude: lon) else { return .nan }
            return other.posting(row: Int(nr.rounded()), column: Int(nc.rounded()))
        }
        return Bilinear.interpolate(posting(r0, c0), posting(r0, c0 + 1), posting(r0 + 1, c0), posting(r0 + 1, c0 + 1),
                                    u: c - Double(c0), v: r - Double(r0))
    }

    /// The file names in the folder (none when it cannot be read).
    static func names(in path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if !name.hasPrefix(".") { names.append(name) }
        }
        return names.sorted()
    }

    static func format(of name: String) -> DEMTileInfo.Format? {
        let lower = name.lowercased()
        if lower.hasSuffix(".hgt") { return .hgt }
        if lower.hasSuffix(".hgt.zip") || (lower.hasSuffix(".zip") && TileCell(fileName: name) != nil) { return .hgtZip }
        if lower.hasSuffix(".tif") || lower.hasSuffix(".tiff") { return .geoTIFF }
        return nil
    }

    /// One file: its listing, its cell and the tile, or the listing with the problem.
    static func open(_ path: String, name: String, format: DEMTileInfo.Format, cacheDirectory: String?)
        -> (info: DEMTileInfo, cell: TileCell?, tile: (any ElevationTile)?) {
        let named = TileCell(fileName: name)
        var info = DEMTileInfo(file: name, format: format, cell: named?.description, used: false)
        do throws(TerrainFileError) {
            let tile: any ElevationTile
            switch format {
            case .hgt, .hgtZip:
                guard let named else { throw TerrainFileError(file: name, "names no tile (an .hgt is named by its south-west corner, e.g. N41E002.hgt)") }
                let file = try TileFile(path: path)
                tile = format == .hgt ? try HGTTile(file: file, cell: named)
                    : try ZippedHGT.open(file: file, cell: named, cacheDirectory: cacheDirectory)
            case .geoTIFF:
                tile = try GeoTIFFTile(path: path, cacheDirectory: cacheDirectory)
            }
            let g = tile.grid
            let cell = TileCell(latitude: (g.north + g.south) / 2, longitude: (g.west + g.east) / 2)
            if let named, named != cell {
                throw TerrainFileError(file: name, "is named \(named) but its postings lie in \(cell)")
            }
            info.cell = cell.description
            info.bounds = [g.south, g.west, g.north, g.east]
            info.arcSeconds = (g.arcSeconds * 1000).rounded() / 1000
            info.rows = g.rows
            info.columns = g.columns
            return (info, cell, tile)
        } catch {
            info.problem = error.reason
            return (info, named, nil)
        }
    }
}
