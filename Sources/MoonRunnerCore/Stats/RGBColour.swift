/// An sRGB colour, 8 bits per channel.
public struct RGBColour: Sendable, Equatable, Hashable, Codable {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// `#rrggbb`, lower case.
    public var hex: String {
        let digits: [Character] = Array("0123456789abcdef")
        var s = "#"
        for c in [red, green, blue] {
            s.append(digits[Int(c >> 4)])
            s.append(digits[Int(c & 15)])
        }
        return s
    }

    /// The colour `f` of the way from `a` to `b` (f clamped to 0...1).
    public static func mix(_ a: RGBColour, _ b: RGBColour, _ f: Double) -> RGBColour {
        let t = f.isFinite ? min(1, max(0, f)) : 0
        func channel(_ x: UInt8, _ y: UInt8) -> UInt8 {
            UInt8((Double(x) + t * (Double(y) - Double(x))).rounded())
        }
        return RGBColour(red: channel(a.red, b.red), green: channel(a.green, b.green),
                         blue: channel(a.blue, b.blue))
    }

    /// The seed app's three anchors: slow, middling, fast.
    public static let slow = RGBColour(red: 255, green: 20, blue: 44)
    public static let middle = RGBColour(red: 255, green: 215, blue: 0)
    public static let fast = RGBColour(red: 0, green: 146, blue: 78)
}
