/// The whole-degree cell of the Earth a terrain tile covers, named as SRTM
/// names its files: by the south-west corner, `N41E002` for 41–42° N, 2–3° E.
/// Copernicus names the same cell `..._N41_00_E002_00_DEM`; both are read.
public struct TileCell: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Latitude and longitude of the south-west corner, whole degrees.
    public var south: Int
    public var west: Int

    public init(south: Int, west: Int) {
        (self.south, self.west) = (south, west)
    }

    /// The cell a point lies in (a point on a shared edge belongs to the cell north and east of it).
    public init(latitude: Double, longitude: Double) {
        south = Int((latitude.isFinite ? latitude : 0).rounded(.down))
        west = Int((longitude.isFinite ? longitude : 0).rounded(.down))
    }

    /// `N41E002`, `S12W077`.
    public var description: String {
        let ns = south >= 0 ? "N" : "S"
        let ew = west >= 0 ? "E" : "W"
        return ns + Self.padded(abs(south), 2) + ew + Self.padded(abs(west), 3)
    }

    /// The cell a tile's file name says it covers: SRTM's `N41E002.hgt` (any
    /// case, `.hgt.zip` too, or `N41E002.SRTMGL1.hgt.zip` as NASA serves them)
    /// or Copernicus's `Copernicus_DSM_COG_10_N41_00_E002_00_DEM.tif`; nil when
    /// the name says neither.
    public init?(fileName: String) {
        let name = Array(fileName.uppercased().utf8)
        if let cell = Self.srtm(name) ?? Self.copernicus(name) {
            self = cell
        } else {
            return nil
        }
    }

    public static func < (a: TileCell, b: TileCell) -> Bool {
        (a.south, a.west) < (b.south, b.west)
    }

    /// `N41E002` at the start of the name.
    private static func srtm(_ s: [UInt8]) -> TileCell? {
        guard s.count >= 7, let lat = number(s, 1, 2), let lon = number(s, 4, 3),
              let ns = hemisphere(s[0], "N", "S"), let ew = hemisphere(s[3], "E", "W") else { return nil }
        if s.count > 7, isDigit(s[7]) { return nil }
        return checked(south: ns * lat, west: ew * lon)
    }

    /// `..._N41_00_E002_00_...` anywhere in the name.
    private static func copernicus(_ s: [UInt8]) -> TileCell? {
        guard s.count >= 14 else { return nil }
        for i in 0...(s.count - 14) {
            guard let ns = hemisphere(s[i], "N", "S"), let lat = number(s, i + 1, 2), s[i + 3] == UInt8(ascii: "_"),
                  number(s, i + 4, 2) == 0, s[i + 6] == UInt8(ascii: "_"), let ew = hemisphere(s[i + 7], "E", "W"),
                  let lon = number(s, i + 8, 3), s[i + 11] == UInt8(ascii: "_"), number(s, i + 12, 2) == 0 else { continue }
            return checked(south: ns * lat, west: ew * lon)
        }
        return nil
    }

    private static func checked(south: Int, west: Int) -> TileCell? {
        (-90..<90).contains(south) && (-180..<180).contains(west) ? TileCell(south: south, west: west) : nil
    }

    private static func hemisphere(_ c: UInt8, _ plus: Unicode.Scalar, _ minus: Unicode.Scalar) -> Int? {
        c == UInt8(ascii: plus) ? 1 : c == UInt8(ascii: minus) ? -1 : nil
    }

    private static func isDigit(_ c: UInt8) -> Bool { (48...57).contains(c) }

    private static func number(_ s: [UInt8], _ at: Int, _ count: Int) -> Int? {
        guard at + count <= s.count else { return nil }
        var n = 0
        for c in s[at..<(at + count)] {
            guard isDigit(c) else { return nil }
            n = n * 10 + Int(c - 48)
        }
        return n
    }

    private static func padded(_ n: Int, _ width: Int) -> String {
        let digits = String(n)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
