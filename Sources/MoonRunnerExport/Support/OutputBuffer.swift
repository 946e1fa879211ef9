import FoundationEssentials

/// A growing byte buffer the text writers append to: no intermediate
/// strings per point, no quadratic concatenation, numbers formatted with
/// integer arithmetic (String(format:) per value would dominate a 10-hour
/// export).
struct OutputBuffer {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    var count: Int { bytes.count }
    var data: Data { Data(bytes) }

    mutating func write(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func write(text s: String) {
        var s = s
        s.withUTF8 { bytes.append(contentsOf: $0) }
    }

    mutating func write(byte: UInt8) {
        bytes.append(byte)
    }

    /// Text with the five XML special characters escaped.
    mutating func write(xmlEscaped s: String) {
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "&"): write("&amp;")
            case UInt8(ascii: "<"): write("&lt;")
            case UInt8(ascii: ">"): write("&gt;")
            case UInt8(ascii: "\""): write("&quot;")
            case UInt8(ascii: "'"): write("&apos;")
            default: bytes.append(b)
            }
        }
    }

    /// Text as the body of a JSON string (quotes not included).
    mutating func write(jsonEscaped s: String) {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): write("\\\"")
            case UInt8(ascii: "\\"): write("\\\\")
            case UInt8(ascii: "\n"): write("\\n")
            case UInt8(ascii: "\r"): write("\\r")
            case UInt8(ascii: "\t"): write("\\t")
            case 0..<0x20:
                write("\\u00")
                bytes.append(hex[Int(b >> 4)])
                bytes.append(hex[Int(b & 15)])
            default: bytes.append(b)
            }
        }
    }

    mutating func write(int value: Int64) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            writeDigits(value.magnitude)
        } else {
            writeDigits(UInt64(value))
        }
    }

    mutating func write(int value: Int) { write(int: Int64(value)) }

    private static let powersOfTen: [Double] = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9]

    /// `value` with exactly `decimals` digits after the point (0...9);
    /// never "-0.0"; non-finite values are written as 0 (callers leave
    /// unknown values out before getting here).
    mutating func write(_ value: Double, decimals: Int) {
        let d = min(9, max(0, decimals))
        let scale = OutputBuffer.powersOfTen[d]
        guard value.isFinite else {
            write(0, decimals: d)
            return
        }
        let scaled = (value.magnitude * scale).rounded()
        guard scaled < 9e18 else {
            write(text: String(value))
            return
        }
        let units = UInt64(scaled)
        if value < 0 && units != 0 { bytes.append(UInt8(ascii: "-")) }
        let divisor = UInt64(scale)
        writeDigits(units / divisor)
        guard d > 0 else { return }
        bytes.append(UInt8(ascii: "."))
        writeDigits(units % divisor, width: d)
    }

    /// Decimal digits of `value`, left-padded with zeros to `width`.
    mutating func writeDigits(_ value: UInt64, width: Int = 1) {
        let zero = UInt8(ascii: "0")
        // Fast path for the one- and two-digit fields of times and cadences.
        if value < 100 && width <= 2 {
            if value >= 10 || width == 2 { bytes.append(zero + UInt8(value / 10)) }
            bytes.append(zero + UInt8(value % 10))
            return
        }
        let start = bytes.count
        var v = value
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(v % 10))
            v /= 10
        } while v > 0
        while bytes.count - start < width { bytes.append(UInt8(ascii: "0")) }
        bytes[start..<bytes.count].reverse()
    }
}
