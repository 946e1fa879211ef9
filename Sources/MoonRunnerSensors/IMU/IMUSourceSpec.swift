/// Where the daemon's IMU samples come from, as written in the config or on the command
/// line:
///
/// * `none` — no IMU: a GPS-only set-up (steps 0, auto-pause from GPS speed alone);
/// * `i2c:/dev/i2c-1@0x68` — a real MPU-6050/6500/9250 (address 0x68 or 0x69; default 0x68);
/// * `replay:FILE[,speed=N][,loop][,fault=KIND@START+SECONDS...]` — a recorded IMU trace
///   (plain or gzip CSV) played through the register-level emulator and the real driver.
///   `speed` is the replay speed the daemon should give its `EngineClock` (the service
///   plays the trace on engine time, so it is the clock that runs fast); `loop` restarts
///   the trace at its end; each `fault=` breaks the emulated device for a while
///   (`eio`, `nack`, `whoami`, `stuck`, `overflow`; see `ScheduledFault`).
public enum IMUSourceSpec: Sendable, Equatable, CustomStringConvertible {
    case none
    case i2c(path: String, address: UInt8)
    case replay(path: String, speed: Double, loop: Bool, faults: [ScheduledFault] = [])

    public static let defaultAddress: UInt8 = 0x68

    /// Replay speed (1 for live hardware).
    public var speed: Double {
        if case let .replay(_, speed, _, _) = self { return speed }
        return 1
    }

    public var description: String {
        switch self {
        case .none:
            return "none"
        case let .i2c(path, address):
            return SourceSpecGrammar.describe(.i2c(path: path, address: address))
        case let .replay(path, speed, loop, faults):
            return SourceSpecGrammar.describe(.replay(.init(path: path, speed: speed, loop: loop, faults: faults)))
        }
    }

    /// Parses a spec string; the error says what is wrong with which part.
    public static func parse(_ text: String) throws(IMUSourceSpecError) -> IMUSourceSpec {
        if text.trimmingWhitespace() == "none" { return .none }
        do throws(SourceSpecGrammar.Failure) {
            switch try SourceSpecGrammar.parse(text, defaultAddress: defaultAddress, example: "0x68") {
            case let .i2c(path, address): return .i2c(path: path, address: address)
            case let .replay(r): return .replay(path: r.path, speed: r.speed, loop: r.loop, faults: r.faults)
            case nil:
                throw SourceSpecGrammar.Failure("expected 'none', 'i2c:/dev/i2c-N@0x68' or 'replay:FILE[,speed=N][,loop]'")
            }
        } catch {
            throw IMUSourceSpecError(spec: text, reason: error.reason)
        }
    }
}

/// A malformed IMU source spec.
public struct IMUSourceSpecError: Error, Equatable, Sendable, CustomStringConvertible {
    public var spec: String
    public var reason: String
    public var description: String { "invalid IMU source '\(spec)': \(reason)" }
}
