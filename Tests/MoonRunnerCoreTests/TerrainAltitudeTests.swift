import Foundation
import Testing
@testable import MoonRunnerCore
import MoonRunnerTestSupport

/// A terrain model given by a function of the position east of the test plane's origin (metres);
/// nil where it has no tile.
struct TerrainByEast: TerrainModel {
    let height: @Sendable (Double) -> Double?

    func elevation(latitude: Double, longitude: Double) -> TerrainReading {
        let east = SimulatedGPSReceiver.plane.project(lat: latitude, lon: longitude).east
        let cell = TileCell(latitude: latitude, longitude: longitude)
        return height(east).map { .elevation($0) } ?? .noTile(cell)
    }
}

/// The ground along the test run (3 m a second, east): flat at 400 m, a 20 m hill between 900 and
/// 2100 m, flat again.
func ground(_ east: Double) -> Double {
    400 + 20 * min(max((east - 900) / 600, 0), 1) - 20 * min(max((east - 1500) / 600, 0), 1)
}

/// GPS altitude: the ground, 12 m off and wandering ±8 m over a few minutes (what GPS altitude
/// does), plus the receiver's white noise.
func wanderingGPS(_ t: Double) -> Double {
    12 + 8 * sin(t / 90) + 3 * sin(t / 23)
}

@Suite("Altitude from a terrain model")
struct TerrainAltitudeTests {
    /// Feeds `seconds` of a runner at 3 m/s east; `terrain(east)` is the DEM (nil: no tile there).
    static func run(_ seconds: Int, seed: UInt64 = 7, terrain: (Double) -> Double?,
                    barometer: Bool = false) -> (AltitudeFusion, [AltitudeUpdate]) {
        var fusion = AltitudeFusion()
        var rx = SimulatedGPSReceiver(seed: seed)
        var baro = SimulatedBarometer(seed: seed + 1)
        var updates: [AltitudeUpdate] = []
        for i in 0..<seconds {
            let t = Double(i), east = 3 * t
            if barometer {
                for k in 0..<10 { fusion.ingest(baro.reading(t: t + Double(k) / 10, altitude: ground(3 * (t + Double(k) / 10)))) }
            }
            let fix = rx.fix(t: t, east: east, north: 0, ve: 3, vn: 0, altitude: ground(east) + wanderingGPS(t))
            updates.append(fusion.gps(altitude: fix.altitude, sigma: fix.stdAlt, at: t + 0.95, moving: true,
                                      terrain: terrain(east) ?? .nan, moved: 3))
        }
        return (fusion, updates)
    }

    @Test("under a DEM without a barometer the climb and the profile are the ground's, not GPS's wander")
    func climbFromTheGround() {
        let (_, updates) = Self.run(900) { ground($0) }
        let gain = updates.map(\.gain).reduce(0, +), loss = updates.map(\.loss).reduce(0, +)
        // Both slopes count in full, from the foot of the hill to its top and back.
        #expect(abs(gain - 20) <= 0.01, "gain \(gain)")
        #expect(abs(loss - 20) <= 0.01, "loss \(loss)")
        #expect(updates.allSatisfy { $0.source == .dem })
        #expect(zip(updates, (0..<900).map { ground(3 * Double($0)) }).allSatisfy { abs($0.altitude - $1) < 1e-9 })
    }

    @Test("GPS alone counts its wander as climbing where the DEM sees none: the comparison the DEM is for")
    func gpsAloneWanders() {
        let (_, dem) = Self.run(900) { _ in 400 }
        let (_, gps) = Self.run(900) { _ in nil }
        let demGain = dem.map(\.gain).reduce(0, +), gpsGain = gps.map(\.gain).reduce(0, +)
        #expect(demGain == 0)
        #expect(gpsGain > 10, "GPS alone \(gpsGain) m on flat ground")
    }

    @Test("leaving the tile, GPS fills in from the ground's level: no step in the profile, no climb at the seam")
    func leavingTheTile() {
        // The tile ends 1200 m east (on the hill); GPS altitude there is 12–20 m off the ground.
        let (_, updates) = Self.run(900) { $0 < 1200 ? ground($0) : nil }
        let seam = 400  // the first fix beyond 1200 m
        #expect(updates[seam - 1].source == .dem && updates[seam].source == .gps)
        let step = abs(updates[seam].altitude - updates[seam - 1].altitude)
        // One second of running: the ground rises 0.1 m, GPS noise moves its smoothed altitude a little.
        #expect(step < 1, "step at the seam \(step) m")
        #expect(updates[seam].gain == 0 && updates[seam].loss == 0)
        // Beyond, GPS gives the changes on the ground's level: just after the seam within the few
        // metres GPS wanders in 10 s (0.22 m/s at most here), where GPS's own level is 12–23 m off;
        // later by as much as GPS wanders since the seam, on average less than its own offset.
        let error = (seam..<900).map { abs(updates[$0].altitude - ground(3 * Double($0))) }
        #expect(error.prefix(10).max() ?? 99 < 3.5, "worst in the first 10 s: \(error.prefix(10).max() ?? 0) m")
        let mean = error.reduce(0, +) / Double(error.count)
        #expect(mean < 12, "mean \(mean) m off the ground")
    }

    @Test("entering a tile from GPS, the profile eases onto the DEM over 200 m: no step, and the easing adds no climb")
    func enteringTheTile() {
        let (_, updates) = Self.run(600) { $0 >= 600 ? 400 : nil }  // flat ground, the tile from 600 m
        let seam = 200
        #expect(updates[seam].source == .dem)
        let steps = (seam..<(seam + 80)).map { abs(updates[$0].altitude - updates[$0 - 1].altitude) }
        // A 12–20 m offset eased over 200 m is under 0.5 m a fix (3 m of travel).
        #expect(steps.max() ?? 99 < 0.5, "largest step \(steps.max() ?? 0) m")
        #expect(abs(updates[seam + 80].altitude - 400) < 1e-9)
        #expect(updates[seam...].map(\.gain).reduce(0, +) == 0)
    }

    @Test("voids of a few postings on the hill (GPS filling in) lose no climb, and GPS's wander in them adds none")
    func voidsOnTheHill() {
        // Three fixes without terrain every 20 (9 m of 60 m), up and down the 20 m hill.
        var i = 0
        let (_, updates) = Self.run(900) { east in
            i += 1
            return i % 20 < 3 ? nil : ground(east)
        }
        let gain = updates.map(\.gain).reduce(0, +), loss = updates.map(\.loss).reduce(0, +)
        #expect(updates.contains { $0.source == .gps })
        // A void over the top hides what it covers of it: at most 9 m of track at 3.3 %, 0.3 m.
        #expect(abs(gain - 20) <= 0.3, "gain \(gain)")
        #expect(abs(loss - 20) <= 0.3, "loss \(loss)")
    }

    @Test("with a barometer, the barometer keeps the shape and the DEM is its level (not GPS's, 12–20 m off)")
    func barometerOnTheDEMLevel() {
        let (fusion, updates) = Self.run(900, terrain: { ground($0) }, barometer: true)
        #expect(fusion.source == .barometric)
        let late = updates[600...].enumerated().map { abs($0.element.altitude - ground(3 * Double(600 + $0.offset))) }
        let mean = late.reduce(0, +) / Double(late.count)
        // The level follows the DEM within its error over the distance run; GPS's was 12–20 m off.
        #expect(mean < 4, "mean error \(mean) m")
        let gain = updates.map(\.gain).reduce(0, +)
        #expect(abs(gain - 20) < 1.5, "gain \(gain)")
    }

    @Test("tile names: SRTM's and Copernicus's, both hemispheres; other names are no tile",
          arguments: [("N41E002.hgt", "N41E002"), ("s12w077.hgt.zip", "S12W077"), ("N41E002.SRTMGL1.hgt.zip", "N41E002"),
                      ("Copernicus_DSM_COG_10_S08_00_W035_00_DEM.tif", "S08W035"), ("terrain.hgt", "-"),
                      ("N41E0021.hgt", "-"), ("N95E002.hgt", "-")])
    func tileNames(name: String, cell: String) {
        #expect((TileCell(fileName: name)?.description ?? "-") == cell)
    }

    @Test("a point belongs to the cell south-west of it: N41E002 holds 41.5, 2.5; S01W001 holds −0.5, −0.5")
    func cells() {
        #expect(TileCell(latitude: 41.5, longitude: 2.5).description == "N41E002")
        #expect(TileCell(latitude: -0.5, longitude: -0.5).description == "S01W001")
    }

    @Test("GeoTIFF georeferencing: pixel-is-point puts the tie point at the first posting, pixel-is-area half a pixel out")
    func georeference() throws {
        let keys: [UInt16] = [1, 1, 0, 3, 1024, 0, 1, 2, 1025, 0, 1, 2, 2048, 0, 1, 4326]
        let point = GeoTIFFGeoreference(pixelScale: [1 / 3600.0, 1 / 3600.0, 0], tiepoint: [0, 0, 0, 2, 42, 0], geoKeys: keys)
        let g = try point.grid(width: 3600, height: 3600)
        #expect(g.north == 42 && g.west == 2 && abs(g.south - (41 + 1 / 3600.0)) < 1e-12)
        var areaKeys = keys
        areaKeys[11] = 1
        let area = GeoTIFFGeoreference(pixelScale: [1 / 3600.0, 1 / 3600.0, 0], tiepoint: [0, 0, 0, 2, 42, 0], geoKeys: areaKeys)
        let a = try area.grid(width: 3600, height: 3600)
        #expect(abs(a.north - (42 - 0.5 / 3600)) < 1e-12 && abs(a.west - (2 + 0.5 / 3600)) < 1e-12)
        #expect(throws: GeoreferenceError.missing("ModelTiepointTag (33922)")) {
            try GeoTIFFGeoreference(pixelScale: [1, 1, 0], tiepoint: [], geoKeys: keys).grid(width: 10, height: 10)
        }
    }
}

@Suite("Terrain in the session engine")
struct EngineTerrainTests {
    /// A session over 1500 s at 3 m/s east on `ground`, with tiles where `covered(east)`.
    static func record(covered: @escaping @Sendable (Double) -> Bool) -> (SessionEngine, [SessionEvent]) {
        record(terrain: TerrainByEast { covered($0) ? ground($0) : nil })
    }

    static func record(terrain: any TerrainModel) -> (SessionEngine, [SessionEvent]) {
        var engine = SessionEngine(terrain: terrain)
        var rx = SimulatedGPSReceiver(seed: 51)
        var events: [SessionEvent] = []
        let t0 = 1_700_000_000.0
        try? engine.start(activity: .run, at: t0) { _ in }
        for i in 0..<900 {
            let t = t0 + Double(i)
            var fix = rx.fix(t: Double(i), east: Double(i) * 3, north: 0, ve: 3, vn: 0,
                             altitude: ground(3 * Double(i)) + wanderingGPS(Double(i)))
            fix.time = t
            engine.ingest(fix, at: t + 0.95) { out in
                if case let .event(e) = out { events.append(e) }
            }
        }
        return (engine, events)
    }

    @Test("a DEM over the whole run: the session's altitude source is dem, its climb the hill's, and no event")
    func covered() {
        let (engine, events) = Self.record { _ in true }
        let st = engine.stats
        #expect(st.altitudeSource == .dem)
        #expect(st.demPoints >= st.points - 3)
        // The terrain is read under the filtered position, which passes the top within a few metres
        // (a few centimetres of it at 3.3 %).
        #expect(abs(st.elevationGain - 20) <= 0.1, "gain \(st.elevationGain)")
        #expect(!events.contains { $0.kind == .terrainLost })
    }

    /// The configured folder with no tile in it (missing, or empty): nothing covers anything.
    struct NoTiles: TerrainModel {
        var hasTiles: Bool { false }
        func elevation(latitude: Double, longitude: Double) -> TerrainReading {
            .noTile(TileCell(latitude: latitude, longitude: longitude))
        }
    }

    @Test("a terrain folder without a tile is as no folder: GPS altitude, and no terrain_lost for what was never there")
    func noTiles() {
        let (engine, events) = Self.record(terrain: NoTiles())
        let (plain, _) = Self.record(terrain: TerrainByEast { _ in nil })
        #expect(!events.contains { $0.kind == .terrainLost || $0.kind == .terrainRegained })
        #expect(engine.stats.altitudeSource == .gps && engine.stats.demPoints == 0)
        #expect(plain.stats.altitudeSource == .gps)
        #expect(engine.stats.elevationGain == plain.stats.elevationGain)
    }

    @Test("a missing tile mid-run is a gap filled from GPS, said as terrain_lost naming the tile and terrain_regained")
    func missingTile() {
        let (engine, events) = Self.record { $0 < 1000 || $0 > 1800 }
        let lost = events.filter { $0.kind == .terrainLost }
        let back = events.filter { $0.kind == .terrainRegained }
        #expect(lost.count == 1 && back.count == 1)
        #expect(lost.first?.detail == "no tile N47E008")
        #expect(lost.first?.cause == "terrain")
        // Lost about 1000 m in (333 s), back about 1800 m in (600 s), three fixes after each edge.
        #expect(abs((lost.first?.time ?? 0) - 1_700_000_000 - 336) < 4)
        #expect(abs((back.first?.time ?? 0) - 1_700_000_000 - 603) < 4)
        let shares = engine.stats.altitudeShares
        #expect(shares.gps > 0.2 && shares.dem > 0.6 && abs(shares.gps + shares.dem + shares.barometric - 1) < 1e-9)
    }
}
