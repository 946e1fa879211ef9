import ArgumentParser
import FoundationEssentials
import Glibc
import MoonRunnerCore
import MoonRunnerTerrain

/// `moonrunner dem`: the terrain tiles a folder holds, and the elevation at a point. Offline, like
/// `analyze`: it reads the folder itself, as the daemon does at the start of each session.
struct DEMCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dem",
        abstract: "List the terrain tiles (DEM) in a folder, or the elevation a point gets from them (no daemon needed).",
        discussion: """
            Tiles are SRTM .hgt (1″ or 3″, zipped or not, named by their south-west corner, e.g. N41E002.hgt) \
            and Copernicus GLO-30 / GLO-90 GeoTIFF. A tile that cannot be used is listed with what is wrong; \
            it is skipped, never fatal. Deflated .hgt.zip tiles are unpacked once into the cache folder.
            """)

    @Option(help: "The tiles' folder (the daemon's elevation.dem_dir).", completion: .directory)
    var dir: String = DEMCommand.defaultFolder
    @Option(help: ArgumentHelp("A point: which tile answers and the elevation there.", valueName: "lat,lon"))
    var at: String?
    /// `--json` is the option every subcommand shares (declaring the group here hands it to this one).
    @OptionGroup var output: ClientOptions

    static let defaultFolder = "/var/lib/moonrunner/dem"

    func validate() throws {
        if let at, Self.point(at) == nil { throw ValidationError("--at must be LAT,LON in degrees, e.g. 41.39,2.16") }
    }

    func run() throws {
        let dem = try Self.folder(dir)
        let point = at.flatMap(Self.point)
        if output.json {
            out(Self.json(dem, point: point))
            return
        }
        if let point {
            out(Self.describe(point, in: dem))
            return
        }
        out("\(dem.path): \(dem.tiles.count) tile\(dem.tiles.count == 1 ? "" : "s"), \(dem.cells.count) cell\(dem.cells.count == 1 ? "" : "s") covered")
        for t in dem.tiles { out(Self.line(t)) }
    }

    /// The folder's tiles; a folder that is not there ends the command (exit 74).
    static func folder(_ path: String) throws -> DEMDirectory {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
            throw fail("\(path): no such folder (tiles go in elevation.dem_dir)", ExitCodes.ioError)
        }
        return DEMDirectory(path: path, cacheDirectory: cacheFolder())
    }

    /// Where deflated .hgt.zip tiles are unpacked for this user: $XDG_CACHE_HOME or ~/.cache, moonrunner/dem.
    static func cacheFolder() -> String? {
        let env = ProcessInfo.processInfo.environment
        guard let base = env["XDG_CACHE_HOME"] ?? env["HOME"].map({ $0 + "/.cache" }) else { return nil }
        let path = base + "/moonrunner/dem"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func point(_ text: String) -> (lat: Double, lon: Double)? {
        let parts = text.split(separator: ",").map { Double(String($0).trimmingSpacesAndTabs()) }
        guard parts.count == 2, let lat = parts[0], let lon = parts[1], (-90...90).contains(lat), (-180...180).contains(lon) else {
            return nil
        }
        return (lat, lon)
    }

    static func line(_ t: DEMTileInfo) -> String {
        let cell = (t.cell ?? "?").padding(8)
        guard t.problem == nil || t.used, let b = t.bounds, let arc = t.arcSeconds else {
            return "\(cell) \(t.file)  NOT USED: \(t.problem ?? "")"
        }
        let area = "\(b[0].fixed(4))…\(b[2].fixed(4))° lat, \(b[1].fixed(4))…\(b[3].fixed(4))° lon"
        return "\(cell) \(t.file)  \(t.format.rawValue), \(arc.fixed(arc.rounded() == arc ? 0 : 2))″ "
            + "(\(t.rows ?? 0) × \(t.columns ?? 0)), \(area)"
    }

    static func describe(_ p: (lat: Double, lon: Double), in dem: DEMDirectory) -> String {
        let cell = TileCell(latitude: p.lat, longitude: p.lon)
        let used = dem.tiles.first { $0.used && $0.cell == cell.description }
        let place = "\(p.lat.fixed(5)), \(p.lon.fixed(5))"
        switch dem.elevation(latitude: p.lat, longitude: p.lon) {
        case let .elevation(h, _): return "\(place): \(h.fixed(1)) m from \(used?.file ?? cell.description)"
        case .void: return "\(place): no elevation in \(used?.file ?? cell.description) there (a void)"
        case .noTile: return "\(place): no tile covers it (\(cell).hgt or Copernicus_DSM_COG_10_\(Self.copernicusCell(cell))_DEM.tif would)"
        }
    }

    static func copernicusCell(_ c: TileCell) -> String {
        let s = c.description
        return String(s.prefix(3)) + "_00_" + String(s.dropFirst(3)) + "_00"
    }

    static func json(_ dem: DEMDirectory, point: (lat: Double, lon: Double)?) -> String {
        struct Reply: Encodable {
            var dir: String
            var tiles: [DEMTileInfo]
            var at: At?
        }
        struct At: Encodable {
            var lat: Double
            var lon: Double
            var cell: String
            var tile: String?
            var elevationM: Double?
            private enum CodingKeys: String, CodingKey { case lat, lon, cell, tile, elevationM = "elevation_m" }
        }
        var reply = Reply(dir: dem.path, tiles: dem.tiles)
        if let p = point {
            let cell = TileCell(latitude: p.lat, longitude: p.lon)
            let reading = dem.elevation(latitude: p.lat, longitude: p.lon)
            let tile = dem.tiles.first { $0.used && $0.cell == cell.description }?.file
            reply.at = At(lat: p.lat, lon: p.lon, cell: cell.description, tile: tile,
                          elevationM: reading.metres.isFinite ? reading.metres : nil)
        }
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return (try? e.encode(reply)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

private extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
