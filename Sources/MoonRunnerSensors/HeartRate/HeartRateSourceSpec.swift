import MoonRunnerCore

/// Where the daemon's heart rate comes from, as written in the config
/// (`hr.source`) or on the command line (`--hr`):
///
/// * `none` — no strap (the default);
/// * `ble:auto` — the first Bluetooth LE strap advertising the Heart Rate
///   service (0x180D) through BlueZ, the nearest when several are (strongest
///   signal), kept for the daemon's life;
/// * `ble:AA:BB:CC:DD:EE:FF` — that strap only;
/// * `replay:FILE[,speed=N]` — a recorded trace (`t,bpm,rr_ms`) played on the
///   engine clock (on the receiver's clock when stamped in UNIX time).
public enum HeartRateSourceSpec: Sendable, Equatable, CustomStringConvertible {
    case none
    /// nil: any strap (`ble:auto`).
    case ble(address: String?)
    case replay(path: String, speed: Double)

    public var speed: Double {
        if case let .replay(_, speed) = self { return speed }
        return 1
    }

    public var description: String {
        switch self {
        case .none: "none"
        case let .ble(address): "ble:\(address ?? "auto")"
        case let .replay(path, speed): SourceSpecGrammar.describe(.replay(.init(path: path, speed: speed)))
        }
    }

    public static func parse(_ text: String) throws(HeartRateSourceSpecError) -> HeartRateSourceSpec {
        let spec = text.trimmingWhitespace()
        if spec == "none" { return .none }
        if spec.hasPrefix("ble:") {
            let rest = String(spec.dropFirst(4))
            if rest == "auto" { return .ble(address: nil) }
            let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 6, parts.allSatisfy({ $0.count == 2 && UInt8($0, radix: 16) != nil }) else {
                throw HeartRateSourceSpecError(spec: text, reason: "'\(rest)' is not a Bluetooth address such as AA:BB:CC:DD:EE:FF (or auto)")
            }
            return .ble(address: rest.uppercased())
        }
        do throws(SourceSpecGrammar.Failure) {
            guard case let .replay(r)? = try SourceSpecGrammar.parse(spec, defaultAddress: 0, example: "") else {
                throw SourceSpecGrammar.Failure("expected 'none', 'ble:auto', 'ble:AA:BB:CC:DD:EE:FF' or 'replay:FILE[,speed=N]'")
            }
            guard r.faults.isEmpty, !r.loop else {
                throw SourceSpecGrammar.Failure("a heart-rate replay takes speed=N only (faults are the BlueZ stand-in's)")
            }
            return .replay(path: r.path, speed: r.speed)
        } catch {
            throw HeartRateSourceSpecError(spec: text, reason: error.reason)
        }
    }
}

public struct HeartRateSourceSpecError: Error, Equatable, Sendable, CustomStringConvertible {
    public var spec: String
    public var reason: String
    public var description: String { "invalid heart-rate source '\(spec)': \(reason)" }
}

/// What a heart-rate source hands the daemon.
public enum HeartRateUpdate: Sendable {
    /// A reading, stamped with the engine-clock instant it arrived.
    case sample(HeartRateSample)
    /// The link or the source's health changed: the whole status at that
    /// moment (so that `hr_state` and `hr.health` never disagree), and a word
    /// on why (the strap, or what was lost).
    case status(HeartRateSourceStatus, detail: String?)
}

/// A snapshot of a heart-rate source, readable from any thread.
public struct HeartRateSourceStatus: Sendable, Equatable {
    /// `ok` (connected, or searching with everything in place), `degraded`
    /// (no bus, no bluetoothd, no adapter or adapter off: retried) or `lost`
    /// (the strap had delivered and no longer does).
    public var health = IMUHealth.lost
    public var state: HeartRateLinkState = .searching
    public var device: String?
    public var notifications = 0
    /// Notifications that could not be read.
    public var malformed = 0
    /// Connections that delivered notifications.
    public var connects = 0
    public var lastError: String?

    public init() {}
}

/// A running heart-rate source: the BlueZ client or a replay.
public protocol HeartRateSource: Sendable {
    var updates: AsyncStream<HeartRateUpdate> { get }
    var status: HeartRateSourceStatus { get }
    /// A replay on the receiver's clock starts once that is known.
    var waitsForReceiver: Bool { get }
    func start()
    func stop()
}
