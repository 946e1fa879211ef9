/// One notification of the GATT Heart Rate Measurement characteristic
/// (0x2A37, Bluetooth Heart Rate Service 1.0, section 3.1), as every chest
/// strap sends it. Little-endian:
/// * flags (1 byte): bit 0 the value's format (0: uint8, 1: uint16); bits 1–2
///   sensor contact (bit 2 "supported", bit 1 "detected"); bit 3 energy
///   expended present; bit 4 RR intervals present; bits 5–7 reserved;
/// * the heart rate, bpm (1 or 2 bytes); energy expended, kJ since the strap's
///   last reset (2 bytes), when flagged; RR intervals, 1/1024 s each (2 bytes
///   each), when flagged, as many as fit (none, one or a backlog).
///
/// Pure and fuzzed: a notification shorter than its flags claim, or an RR
/// list with an odd byte left over, is refused whole.
public struct HeartRateNotification: Sendable, Equatable {
    /// Beats per minute as the strap sent it (0: the strap has none).
    public var bpm: Int
    public var contact: SensorContact
    /// kJ since the strap's last reset, when it sends it.
    public var energyExpended: Int?
    /// R–R intervals in 1/1024 s, oldest first.
    public var rrIntervals: [UInt16]

    public init(bpm: Int, contact: SensorContact = .notSupported, energyExpended: Int? = nil, rrIntervals: [UInt16] = []) {
        self.bpm = bpm
        self.contact = contact
        self.energyExpended = energyExpended
        self.rrIntervals = rrIntervals
    }

    /// The strap's skin-contact report.
    public enum SensorContact: String, Sendable, Equatable, CaseIterable {
        /// The strap cannot tell (flags 0b00 or 0b01 in bits 1–2).
        case notSupported = "not_supported"
        /// It can, and has none: the value is not a heart rate.
        case notDetected = "not_detected"
        case detected
    }

    /// The flag bits (Heart Rate Service 1.0, table 3.1).
    public enum Flag {
        public static let uint16Value: UInt8 = 0x01
        public static let contactDetected: UInt8 = 0x02
        public static let contactSupported: UInt8 = 0x04
        public static let energyExpended: UInt8 = 0x08
        public static let rrIntervals: UInt8 = 0x10
    }

    /// R–R intervals in milliseconds (1/1024 s units converted, not rounded).
    public var rrMilliseconds: [Double] { rrIntervals.map { Double($0) * 1000 / 1024 } }

    /// Parses one notification's bytes.
    public static func parse<Bytes: Collection>(_ bytes: Bytes) throws(HeartRateParseError) -> HeartRateNotification
    where Bytes.Element == UInt8 {
        var i = bytes.startIndex
        guard i != bytes.endIndex else { throw .empty }
        let flags = bytes[i]
        i = bytes.index(after: i)
        var remaining = bytes.distance(from: i, to: bytes.endIndex)

        func u16() -> Int {
            let lo = Int(bytes[i])
            i = bytes.index(after: i)
            let hi = Int(bytes[i])
            i = bytes.index(after: i)
            remaining -= 2
            return lo | hi << 8
        }

        let wide = flags & Flag.uint16Value != 0
        let needed = (wide ? 2 : 1) + (flags & Flag.energyExpended != 0 ? 2 : 0)
        guard remaining >= needed else { throw .tooShort(flags: flags, needed: needed + 1, got: remaining + 1) }
        let bpm: Int
        if wide {
            bpm = u16()
        } else {
            bpm = Int(bytes[i])
            i = bytes.index(after: i)
            remaining -= 1
        }
        let contact: SensorContact = switch (flags & Flag.contactSupported != 0, flags & Flag.contactDetected != 0) {
        case (true, true): .detected
        case (true, false): .notDetected
        default: .notSupported
        }
        let energy = flags & Flag.energyExpended != 0 ? u16() : nil
        var rr: [UInt16] = []
        if flags & Flag.rrIntervals != 0 {
            guard remaining % 2 == 0 else { throw .rrPastPayload(bytesLeft: remaining) }
            rr.reserveCapacity(remaining / 2)
            while remaining >= 2 { rr.append(UInt16(u16())) }
        }
        return HeartRateNotification(bpm: bpm, contact: contact, energyExpended: energy, rrIntervals: rr)
    }

    /// The notification's bytes (what a strap sends): the value as uint8 when
    /// it fits unless `wide`, then energy and RR intervals when present.
    public func encoded(wide: Bool = false) -> [UInt8] {
        let sixteen = wide || bpm > 255
        var flags: UInt8 = sixteen ? Flag.uint16Value : 0
        switch contact {
        case .notSupported: break
        case .notDetected: flags |= Flag.contactSupported
        case .detected: flags |= Flag.contactSupported | Flag.contactDetected
        }
        if energyExpended != nil { flags |= Flag.energyExpended }
        if !rrIntervals.isEmpty { flags |= Flag.rrIntervals }
        var out: [UInt8] = [flags]
        let value = max(0, min(bpm, 0xFFFF))
        if sixteen { out += [UInt8(value & 0xFF), UInt8(value >> 8)] } else { out.append(UInt8(value)) }
        if let e = energyExpended {
            let v = max(0, min(e, 0xFFFF))
            out += [UInt8(v & 0xFF), UInt8(v >> 8)]
        }
        for r in rrIntervals { out += [UInt8(r & 0xFF), UInt8(r >> 8)] }
        return out
    }
}

/// Why a notification could not be read.
public enum HeartRateParseError: Error, Sendable, Equatable, CustomStringConvertible {
    case empty
    /// The flags ask for `needed` bytes; the notification has `got`.
    case tooShort(flags: UInt8, needed: Int, got: Int)
    /// The RR list leaves an odd byte over: it runs past the payload.
    case rrPastPayload(bytesLeft: Int)

    public var description: String {
        switch self {
        case .empty: "an empty notification"
        case let .tooShort(flags, needed, got):
            "a notification of \(got) bytes where its flags (0x\(String(flags, radix: 16))) need \(needed)"
        case let .rrPastPayload(left): "an RR-interval list that runs past the payload (\(left) bytes left, not pairs)"
        }
    }
}
