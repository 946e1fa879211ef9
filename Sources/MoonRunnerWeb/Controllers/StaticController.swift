import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import NIOCore

/// The few files the pages need: `/static/NAME` from the binary, Leaflet
/// from Debian's libjs-leaflet (only with tiles) and `/tiles/z/x/y` from an
/// MBTiles file. Every name is looked up in a fixed table, so no path a
/// browser sends (`..`, `%2e%2e`, an absolute path) ever reaches the file
/// system.
struct StaticController {
    let leaflet: [String: Assets.File]
    let tiles: MBTiles?

    func addPublicRoutes(to router: Router<WebContext>) {
        router.get("/static/{name}") { request, context in
            try serve(Assets.files[context.parameters.get("name") ?? ""], request, immutable: true)
        }
    }

    func addRoutes(to group: RouterGroup<WebContext>) {
        guard !leaflet.isEmpty else { return }
        group.get("/leaflet/{name}") { request, context in
            try serve(leaflet[context.parameters.get("name") ?? ""], request, immutable: false)
        }
        group.get("/leaflet/images/{name}") { request, context in
            try serve(leaflet["images/" + (context.parameters.get("name") ?? "")], request, immutable: false)
        }
        guard let tiles else { return }
        group.get("/tiles/{z}/{x}/{y}") { _, context in
            guard let z = context.parameters.get("z", as: Int.self), let x = context.parameters.get("x", as: Int.self),
                  let y = context.parameters.get("y", as: Int.self), (0...22).contains(z), x >= 0, y >= 0,
                  x < 1 << z, y < 1 << z else { throw HTTPError(.notFound) }
            guard let tile = try await tiles.tile(z: z, x: x, y: y) else { throw HTTPError(.notFound) }
            return Response(status: .ok, headers: [.contentType: tiles.mediaType, .cacheControl: "public, max-age=86400"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: tile)))
        }
    }

    private func serve(_ file: Assets.File?, _ request: Request, immutable: Bool) throws -> Response {
        guard let file else { throw HTTPError(.notFound) }
        var headers: HTTPFields = [
            .contentType: file.mediaType,
            .cacheControl: immutable ? "public, max-age=31536000, immutable" : "public, max-age=86400",
            .vary: "Accept-Encoding",
        ]
        if let gz = file.gzipped, gz.count < file.bytes.count, Gzip.accepted(request.headers[.acceptEncoding]) {
            headers[.contentEncoding] = "gzip"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: gz)))
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: file.bytes)))
    }

    /// Leaflet's files from `dir` (read once, at start).
    static func loadLeaflet(_ dir: String) -> [String: Assets.File] {
        var out: [String: Assets.File] = [:]
        let names = [("leaflet.js", "text/javascript; charset=utf-8"), ("leaflet.css", "text/css; charset=utf-8")]
            + ["layers.png", "layers-2x.png", "marker-icon.png", "marker-icon-2x.png", "marker-shadow.png"]
            .map { ("images/" + $0, "image/png") }
        for (name, type) in names {
            guard let data = FileManager.default.contents(atPath: dir + "/" + name) else { continue }
            let bytes = [UInt8](data)
            out[name] = Assets.File(bytes: bytes, gzipped: type.hasPrefix("image") ? nil : Gzip.compress(bytes, level: 9),
                                    mediaType: type)
        }
        return out
    }
}

/// Raster tiles from an MBTiles file (SQLite, read only): the tile table
/// counts rows from the south (TMS), the URL from the north (XYZ).
public final class MBTiles: Sendable {
    let queue: DatabaseQueue
    public let mediaType: String

    public init(path: String) throws {
        var config = Configuration()
        config.readonly = true
        queue = try DatabaseQueue(path: path, configuration: config)
        let format = try queue.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM metadata WHERE name = 'format'")
        }
        switch format?.lowercased() {
        case "jpg", "jpeg": mediaType = "image/jpeg"
        case "webp": mediaType = "image/webp"
        default: mediaType = "image/png"
        }
    }

    public func tile(z: Int, x: Int, y: Int) async throws -> [UInt8]? {
        let row = (1 << z) - 1 - y
        let data = try await queue.read { db in
            try Data.fetchOne(db, sql: "SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?",
                              arguments: [z, x, row])
        }
        return data.map { [UInt8]($0) }
    }
}
