import Foundation
import MoonRunnerProtocol
import MoonRunnerTestSupport
import Testing

/// The terrain model in a running daemon: tiles dropped in `elevation.dem_dir` are used from the
/// next session on, the session's altitude and climb are the ground's where they cover the walk,
/// GPS fills the rest (said in the events), a bad tile is logged and skipped; and `moonrunner dem`
/// reads the same folder.
@Suite("Terrain tiles in the running daemon", .serialized)
struct TerrainEndToEndTests {
    /// The demo walk lies in N39W121 at 1830 m; these 3″ tiles put the ground at 1900 m, with no
    /// postings from column 999 east (−120.1675°): the walk starts and turns in that void.
    static func tile(_ r: Int, _ c: Int) -> Int? { c >= 999 ? nil : 1900 }

    @Test("tiles dropped in after the start are used: the ground's altitude and climb, GPS in the void, the events, a bad tile skipped")
    func walkOverTiles() async throws {
        let rig = try Rig("terrain")
        let dem = rig.dir.appendingPathComponent("dem")
        try FileManager.default.createDirectory(at: dem, withIntermediateDirectories: true)
        try rig.startGPS(epochsPerSecond: 20)
        try rig.startDaemon(speed: 20, config: "elevation:\n  dem_dir: \"\(dem.path)\"\n")
        // Dropped in while the daemon runs: it reads the folder again when the session starts.
        try Data(TileWriter.hgt(side: 1201, Self.tile)).write(to: dem.appendingPathComponent("N39W121.hgt"))
        try Data(count: 1000).write(to: dem.appendingPathComponent("N39W120.hgt"))
        #expect(try rig.cli("start", "--activity", "walk").status == 0)
        let live = try rig.waitFor(timeout: 60, "the altitude from the terrain") { $0.altitudeSource == .dem }
        #expect(live.altitudeShares.map { $0.dem > 0 } == true, "\(String(describing: live.altitudeShares))")
        let ended = try rig.waitFor(timeout: 90, "the end of the walk") { $0.gps.health == .lost }
        #expect(try rig.cli("stop").status == 0)
        let id = try #require(ended.session)
        let shown = try rig.session(id)
        let st = shown.stats
        #expect(st.demPoints > 0 && st.demPoints < st.points, "dem \(st.demPoints) of \(st.points) points")
        let kinds = shown.events.map(\.event)
        #expect(kinds.contains("terrain_lost") && kinds.contains("terrain_regained"), "\(kinds)")
        #expect(shown.events.first { $0.event == "terrain_lost" }?.detail == "no elevation in N39W121")
        // The ground is flat at 1900 m: on it nothing is climbed, and the track carries its altitude.
        let gpx = try rig.cli("export", String(id), "--format", "gpx").out
        #expect(gpx.contains("<ele>1900.0</ele>") || gpx.contains("<ele>1900</ele>"), "\(gpx.prefix(2000))")
        #expect(gpx.contains("Elevation from the terrain model"), "\(gpx.prefix(1200))")
        // The bad tile beside it was named in the log, and changed nothing.
        #expect(rig.daemon?.log.contains("N39W120.hgt not used: is 1000 bytes") == true)
    }

    @Test("moonrunner dem lists the folder with each tile's spacing and problem, answers a point, and refuses a missing folder")
    func demCommand() throws {
        let rig = try Rig("terrain-cli")
        let dem = rig.dir.appendingPathComponent("dem")
        try FileManager.default.createDirectory(at: dem, withIntermediateDirectories: true)
        try Data(TileWriter.hgt(side: 1201, Self.tile)).write(to: dem.appendingPathComponent("N39W121.hgt"))
        try Data(count: 1000).write(to: dem.appendingPathComponent("N39W120.hgt"))
        let list = try run(Paths.cli, ["dem", "--dir", dem.path])
        #expect(list.status == 0)
        #expect(list.out.contains("N39W121.hgt  hgt, 3″ (1201 × 1201)"), "\(list.out)")
        #expect(list.out.contains("N39W120.hgt  NOT USED: is 1000 bytes"), "\(list.out)")
        let at = try run(Paths.cli, ["dem", "--dir", dem.path, "--at", "39.316,-120.170"])
        #expect(at.out.contains("1900.0 m from N39W121.hgt"), "\(at.out)")
        let json = try run(Paths.cli, ["dem", "--dir", dem.path, "--at", "39.316,-120.170", "--json"])
        #expect(json.out.contains("\"elevation_m\":1900"), "\(json.out)")
        let missing = try run(Paths.cli, ["dem", "--dir", dem.appendingPathComponent("nowhere").path])
        #expect(missing.status == 74)
        #expect(missing.err.contains("no such folder"))
    }
}
