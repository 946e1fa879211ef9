/// Where the daemon's IMU samples come from, as written in the config or on the command
/// line:
///
/// * `i2c:/dev/i2c-1@0x68` — a real MPU-6050/6500/9250 (address 0x68 or 0x69; default 0x68);
/// * `replay:FILE[,speed=N][,loop][,fault=KIND@START+SECONDS...]` — a recorded IMU trace
///   (plain or gzip CSV) played through the register-level emulator and the real driver.
///   `speed` is the replay speed the daemon should give its `EngineClock` (the service
///   plays the trace on engine time, so it is the clock that runs fast); `loop` restarts
///   the trace at its end; each `fault=` breaks the emulated device for a while
///   (`eio`, `nack`, `whoami`, `stuck`, `overflow`; see `ScheduledFault`).
public enum IMUSourceSpec: Sendable, Equatable, CustomStringConvertible {
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
        case let .i2c(path, address): return "i2c:\(path)@\(I2CError.hex(address))"
        case let .replay(path, speed, loop, faults):
            var s = "replay:\(path)"
            if speed != 1 { s += ",speed=\(speed)" }
            if loop { s += ",loop" }
            for f in faults { s += ",fault=\(f)" }
            return s
        }
    }

    /// Parses a spec string; the error says what is wrong with which part.
    public static func parse(_ text: String) throws(IMUSourceSpecError) -> IMUSourceSpec {
        let spec = text.trimmingWhitespace()
        if spec.hasPrefix("i2c:") {
            let rest = String(spec.dropFirst(4))
            var path = rest
            var address = defaultAddress
            if let at = rest.lastIndex(of: "@") {
                path = String(rest[..<at])
                let a = String(rest[rest.index(after: at)...])
                guard let value = parseInteger(a), (0x03...0x77).contains(value) else {
                    throw IMUSourceSpecError(spec: text, reason: "'\(a)' is not a 7-bit I2C address (0x03…0x77, e.g. 0x68)")
                }
                address = UInt8(value)
            }
            guard path.hasPrefix("/") else {
                throw IMUSourceSpecError(spec: text, reason: "expected a device path such as /dev/i2c-1")
            }
            return .i2c(path: path, address: address)
        }
        if spec.hasPrefix("replay:") {
            var parts = String(spec.dropFirst(7)).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            var speed = 1.0
            var loop = false
            var faults: [ScheduledFault] = []
            // Options are recognised from the end, so a file name may itself contain commas.
            while parts.count > 1, let last = parts.last {
                let option = last.trimmingWhitespace()
                if option == "loop" {
                    loop = true
                } else if option.hasPrefix("fault=") {
                    guard let f = ScheduledFault.parse(String(option.dropFirst(6))) else {
                        throw IMUSourceSpecError(spec: text, reason: "'\(option)' must be fault=KIND@START[+SECONDS] with KIND one of "
                                                 + ScheduledFault.Kind.allCases.map(\.rawValue).joined(separator: ", "))
                    }
                    faults.insert(f, at: 0)
                } else if option.hasPrefix("speed=") {
                    let v = String(option.dropFirst(6))
                    guard let s = Double(v), s.isFinite, s > 0 else {
                        throw IMUSourceSpecError(spec: text, reason: "speed '\(v)' must be a positive number")
                    }
                    speed = s
                } else {
                    break
                }
                parts.removeLast()
            }
            let path = parts.joined(separator: ",")
            guard !path.isEmpty else {
                throw IMUSourceSpecError(spec: text, reason: "missing trace file after 'replay:'")
            }
            return .replay(path: path, speed: speed, loop: loop, faults: faults)
        }
        throw IMUSourceSpecError(spec: text, reason: "expected 'i2c:/dev/i2c-N@0x68' or 'replay:FILE[,speed=N][,loop]'")
    }

    private static func parseInteger(_ s: String) -> Int? {
        let t = s.lowercased()
        if t.hasPrefix("0x") { return Int(t.dropFirst(2), radix: 16) }
        return Int(t)
    }
}

/// A malformed IMU source spec.
public struct IMUSourceSpecError: Error, Equatable, Sendable, CustomStringConvertible {
    public var spec: String
    public var reason: String
    public var description: String { "invalid IMU source '\(spec)': \(reason)" }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
