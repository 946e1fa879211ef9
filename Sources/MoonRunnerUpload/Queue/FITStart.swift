import Foundation

/// Reads a FIT activity just far enough to know its first record's time and
/// how many records it has: what the services take as the activity's start
/// (FitTrackee's `workout_date`), so a look-up by start time compares like
/// with like, and what a test compares with what a service stored.
public enum FITStart {
    /// Seconds between the UNIX epoch and FIT's (1989-12-31T00:00:00Z).
    static let epoch = 631_065_600.0

    /// The first `record`'s timestamp, UNIX seconds; nil for a file that is not FIT or has no record.
    public static func firstRecord(_ data: Data) -> Double? {
        var first: Double?
        walk(data) { global, time in
            guard global == 20, let time else { return true }
            first = time
            return false
        }
        return first
    }

    /// The number of `record` messages (the track's points).
    public static func records(_ data: Data) -> Int {
        var n = 0
        walk(data) { global, _ in
            if global == 20 { n += 1 }
            return true
        }
        return n
    }

    private struct Definition {
        var global: UInt16
        var size: Int
        var big: Bool
        /// Offset of field 253 (timestamp, uint32) in the message, if it has one.
        var timeOffset: Int?
    }

    /// Calls `visit` with each data message's global number and timestamp until it returns false.
    static func walk(_ data: Data, _ visit: (UInt16, Double?) -> Bool) {
        let b = [UInt8](data)
        guard b.count >= 14, b[8] == 0x2E, b[9] == 0x46, b[10] == 0x49, b[11] == 0x54 else { return }
        let headerSize = Int(b[0])
        let dataSize = Int(b[4]) | Int(b[5]) << 8 | Int(b[6]) << 16 | Int(b[7]) << 24
        var i = headerSize
        let end = min(b.count, headerSize + dataSize)
        var defs: [UInt8: Definition] = [:]
        while i < end {
            let h = b[i]
            i += 1
            guard h & 0x80 == 0 else { return }  // compressed timestamps: not written by MoonRunner
            let local = h & 0x0F
            if h & 0x40 != 0 {
                guard i + 5 <= end else { return }
                let big = b[i + 1] == 1
                let global = big ? UInt16(b[i + 2]) << 8 | UInt16(b[i + 3]) : UInt16(b[i + 3]) << 8 | UInt16(b[i + 2])
                let n = Int(b[i + 4])
                i += 5
                var size = 0, timeOffset: Int?
                for _ in 0..<n {
                    guard i + 3 <= end else { return }
                    if b[i] == 253 { timeOffset = size }
                    size += Int(b[i + 1])
                    i += 3
                }
                if h & 0x20 != 0 {
                    guard i < end else { return }
                    let dev = Int(b[i])
                    i += 1
                    for _ in 0..<dev {
                        guard i + 3 <= end else { return }
                        size += Int(b[i + 1])
                        i += 3
                    }
                }
                defs[local] = Definition(global: global, size: size, big: big, timeOffset: timeOffset)
            } else {
                guard let d = defs[local], i + d.size <= end else { return }
                var time: Double?
                if let o = d.timeOffset {
                    let p = i + o
                    let raw = d.big ? UInt32(b[p]) << 24 | UInt32(b[p + 1]) << 16 | UInt32(b[p + 2]) << 8 | UInt32(b[p + 3])
                        : UInt32(b[p + 3]) << 24 | UInt32(b[p + 2]) << 16 | UInt32(b[p + 1]) << 8 | UInt32(b[p])
                    time = Double(raw) + epoch
                }
                i += d.size
                if !visit(d.global, time) { return }
            }
        }
    }
}
