/// Where the daemon's barometer readings come from, as written in the config
/// (`baro.source`) or on the command line (`--baro`):
///
/// * `none` — no barometer (the default; altitude from GPS alone);
/// * `i2c:/dev/i2c-1@0x76` — a Bosch BMP280/BME280/BMP388/BMP390 (address 0x76
///   or 0x77; default 0x76), found by its chip id;
/// * `replay:FILE[,speed=N][,loop][,fault=KIND@START+SECONDS…]` — a recorded
///   trace (`t,pressure_pa,temperature_c`, plain or gzip) played through the
///   emulated BMP280 and the real driver, paced on the engine clock; faults
///   `eio`, `nack`, `chipid` (or `whoami`), `stuck`.
public enum BaroSourceSpec: Sendable, Equatable, CustomStringConvertible {
    case none
    case i2c(path: String, address: UInt8)
    case replay(path: String, speed: Double, loop: Bool, faults: [ScheduledFault] = [])

    public static let defaultAddress: UInt8 = 0x76
    /// Fault kinds a barometer replay can schedule.
    public static let faultKinds: [ScheduledFault.Kind] = [.eio, .nack, .chipid, .whoami, .stuck]

    /// Replay speed (1 for live hardware or none).
    public var speed: Double {
        if case let .replay(_, speed, _, _) = self { return speed }
        return 1
    }

    public var description: String {
        switch self {
        case .none: return "none"
        case let .i2c(path, address):
            return SourceSpecGrammar.describe(.i2c(path: path, address: address))
        case let .replay(path, speed, loop, faults):
            return SourceSpecGrammar.describe(.replay(.init(path: path, speed: speed, loop: loop, faults: faults)))
        }
    }

    /// Parses a spec string; the error says what is wrong with which part.
    public static func parse(_ text: String) throws(BaroSourceSpecError) -> BaroSourceSpec {
        let usage = "expected 'none', 'i2c:/dev/i2c-N@0x76' or 'replay:FILE[,speed=N]'"
        if text.trimmingWhitespace() == "none" { return .none }
        do throws(SourceSpecGrammar.Failure) {
            switch try SourceSpecGrammar.parse(text, defaultAddress: defaultAddress, example: "0x76") {
            case let .i2c(path, address):
                guard address == 0x76 || address == 0x77 else {
                    throw SourceSpecGrammar.Failure("a Bosch barometer answers at 0x76 or 0x77, not \(I2CError.hex(address))")
                }
                return .i2c(path: path, address: address)
            case let .replay(r):
                if let bad = r.faults.first(where: { !faultKinds.contains($0.kind) }) {
                    throw SourceSpecGrammar.Failure("fault '\(bad.kind.rawValue)' does not apply to a barometer (use "
                                                    + "eio, nack, chipid or stuck)")
                }
                return .replay(path: r.path, speed: r.speed, loop: r.loop, faults: r.faults)
            case nil:
                throw SourceSpecGrammar.Failure(usage)
            }
        } catch {
            throw BaroSourceSpecError(spec: text, reason: error.reason)
        }
    }
}

/// A malformed barometer source spec.
public struct BaroSourceSpecError: Error, Equatable, Sendable, CustomStringConvertible {
    public var spec: String
    public var reason: String
    public var description: String { "invalid barometer source '\(spec)': \(reason)" }
}
