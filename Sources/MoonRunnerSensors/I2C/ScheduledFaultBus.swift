import Synchronization

/// A fault planned in a replay: what goes wrong, from when (seconds after the
/// emulated device was first addressed), for how long. Lets tests and demos
/// break an emulated sensor (IMU or barometer) inside a running daemon, where
/// no test can reach.
public struct ScheduledFault: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable {
        /// Every transfer fails with EIO.
        case eio
        /// The device does not acknowledge (unplugged).
        case nack
        /// The identity register (WHO_AM_I, CHIP_ID) answers a foreign value.
        case whoami
        /// The same, by the barometers' name for that register.
        case chipid
        /// The data freezes: the IMU's FIFO_COUNT stays at 0, a barometer's
        /// readings repeat bit for bit.
        case stuck
        /// The IMU's FIFO overflows once (instantaneous).
        case overflow
        /// A fuel gauge's charge jumps far from the cell's for the duration.
        case jump
    }

    public var kind: Kind
    public var start: Double
    public var duration: Double

    public init(kind: Kind, start: Double, duration: Double = 0) {
        self.kind = kind
        self.start = start
        self.duration = duration
    }

    /// `KIND@START[+DURATION]`, e.g. `eio@20+3`.
    public static func parse(_ text: String) -> ScheduledFault? {
        let parts = text.split(separator: "@", maxSplits: 1)
        guard parts.count == 2, let kind = Kind(rawValue: String(parts[0])) else { return nil }
        let times = parts[1].split(separator: "+", maxSplits: 1)
        guard let start = Double(times[0]), start >= 0 else { return nil }
        let duration = times.count == 2 ? Double(times[1]) : 0
        guard let d = duration, d >= 0 else { return nil }
        return ScheduledFault(kind: kind, start: start, duration: d)
    }

    public var description: String {
        duration > 0 ? "\(kind.rawValue)@\(start)+\(duration)" : "\(kind.rawValue)@\(start)"
    }

    func isActive(at t: Double) -> Bool { t >= start && t < start + duration }
}

/// An emulated device whose faults a replay can schedule.
protocol FaultInjectableDevice: I2CBus {
    /// The address it answers at.
    var address: UInt8 { get }
    /// The register that names the chip (WHO_AM_I, CHIP_ID).
    var identityRegister: UInt8 { get }
    /// Freezes the device's data (true) or lets it flow again (false).
    func setDataStuck(_ stuck: Bool)
    /// Loses data as if the host had stalled; nothing where the device has no FIFO.
    func forceOverflow()
    /// Makes the reported value jump away from the truth (true) or back (a fuel gauge's; nothing elsewhere).
    func setJumped(_ jumped: Bool)
}

extension FaultInjectableDevice {
    func setJumped(_ jumped: Bool) {}
}

/// Wraps an emulated device and applies a fault plan on its clock.
final class ScheduledFaultBus<Device: FaultInjectableDevice>: I2CBus {
    private let device: Device
    private let plan: [ScheduledFault]
    private let now: @Sendable () -> Double
    private let state = Mutex(FaultState())

    private struct FaultState {
        var origin: Double?
        var overflowsDone: Set<Int> = []
        var stuckApplied = false
        var jumpApplied = false
    }

    init(device: Device, plan: [ScheduledFault], clock now: @escaping @Sendable () -> Double) {
        self.device = device
        self.plan = plan
        self.now = now
    }

    /// Applies the plan for this instant; throws the transfer's fault, if any.
    private func gate(readingIdentity: Bool = false) throws(I2CError) -> UInt8? {
        let t = now()
        let (elapsed, overflow, stuck, jump) = state.withLock { s -> (Double, Bool, Bool?, Bool?) in
            let origin = s.origin ?? t
            s.origin = origin
            let e = t - origin
            var overflow = false
            for (i, f) in plan.enumerated() where f.kind == .overflow && e >= f.start && !s.overflowsDone.contains(i) {
                s.overflowsDone.insert(i)
                overflow = true
            }
            let stuckNow = plan.contains { $0.kind == .stuck && $0.isActive(at: e) }
            var change: Bool?
            if stuckNow != s.stuckApplied {
                s.stuckApplied = stuckNow
                change = stuckNow
            }
            let jumpedNow = plan.contains { $0.kind == .jump && $0.isActive(at: e) }
            var jump: Bool?
            if jumpedNow != s.jumpApplied {
                s.jumpApplied = jumpedNow
                jump = jumpedNow
            }
            return (e, overflow, change, jump)
        }
        if overflow { device.forceOverflow() }
        if let stuck { device.setDataStuck(stuck) }
        if let jump { device.setJumped(jump) }
        for f in plan where f.isActive(at: elapsed) {
            switch f.kind {
            case .eio: throw .eio
            case .nack: throw .nack(address: device.address)
            case .whoami where readingIdentity, .chipid where readingIdentity: return 0x42
            default: continue
            }
        }
        return nil
    }

    func select(address: UInt8) throws(I2CError) {
        try device.select(address: address)
    }

    func readRegisters(_ register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(I2CError) {
        let fake = try gate(readingIdentity: register == device.identityRegister)
        try device.readRegisters(register, into: buffer)
        if let fake, !buffer.isEmpty { buffer[0] = fake }
    }

    func readStream(_ register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(I2CError) {
        _ = try gate()
        try device.readStream(register, into: buffer)
    }

    func writeRegister(_ register: UInt8, value: UInt8) throws(I2CError) {
        _ = try gate()
        try device.writeRegister(register, value: value)
    }

    func writeRegisters(_ register: UInt8, bytes: UnsafeRawBufferPointer) throws(I2CError) {
        _ = try gate()
        try device.writeRegisters(register, bytes: bytes)
    }
}
