/// The grammar the sensor source specs share (`IMUSourceSpec`, `BaroSourceSpec`):
///
/// * `i2c:/dev/i2c-N[@ADDRESS]` — a device on a Linux I²C bus;
/// * `replay:FILE[,speed=N][,loop][,fault=KIND@START[+SECONDS]]…` — a recorded
///   trace played through the emulated device. Options are read from the end,
///   so a file name may itself contain commas.
enum SourceSpecGrammar {
    struct Replay: Equatable {
        var path: String
        var speed = 1.0
        var loop = false
        var faults: [ScheduledFault] = []
    }

    enum Source: Equatable {
        case i2c(path: String, address: UInt8)
        case replay(Replay)
    }

    /// What is wrong, for the caller to wrap in its own error.
    struct Failure: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// Parses `text`; nil when it is neither form.
    static func parse(_ text: String, defaultAddress: UInt8, example: String) throws(Failure) -> Source? {
        let spec = text.trimmingWhitespace()
        if spec.hasPrefix("i2c:") {
            let rest = String(spec.dropFirst(4))
            var path = rest
            var address = defaultAddress
            if let at = rest.lastIndex(of: "@") {
                path = String(rest[..<at])
                let a = String(rest[rest.index(after: at)...])
                guard let value = parseInteger(a), (0x03...0x77).contains(value) else {
                    throw Failure("'\(a)' is not a 7-bit I2C address (0x03…0x77, e.g. \(example))")
                }
                address = UInt8(value)
            }
            guard path.hasPrefix("/") else { throw Failure("expected a device path such as /dev/i2c-1") }
            return .i2c(path: path, address: address)
        }
        guard spec.hasPrefix("replay:") else { return nil }
        var parts = String(spec.dropFirst(7)).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        var replay = Replay(path: "")
        while parts.count > 1, let last = parts.last {
            let option = last.trimmingWhitespace()
            if option == "loop" {
                replay.loop = true
            } else if option.hasPrefix("fault=") {
                guard let f = ScheduledFault.parse(String(option.dropFirst(6))) else {
                    throw Failure("'\(option)' must be fault=KIND@START[+SECONDS] with KIND one of "
                                  + ScheduledFault.Kind.allCases.map(\.rawValue).joined(separator: ", "))
                }
                replay.faults.insert(f, at: 0)
            } else if option.hasPrefix("speed=") {
                let v = String(option.dropFirst(6))
                guard let s = Double(v), s.isFinite, s > 0 else { throw Failure("speed '\(v)' must be a positive number") }
                replay.speed = s
            } else {
                break
            }
            parts.removeLast()
        }
        replay.path = parts.joined(separator: ",")
        guard !replay.path.isEmpty else { throw Failure("missing trace file after 'replay:'") }
        return .replay(replay)
    }

    /// The spec's text as `parse` reads it back (defaults left out).
    static func describe(_ source: Source) -> String {
        switch source {
        case let .i2c(path, address):
            return "i2c:\(path)@\(I2CError.hex(address))"
        case let .replay(r):
            var s = "replay:\(r.path)"
            if r.speed != 1 { s += ",speed=\(r.speed)" }
            if r.loop { s += ",loop" }
            for f in r.faults { s += ",fault=\(f)" }
            return s
        }
    }

    static func parseInteger(_ s: String) -> Int? {
        let t = s.lowercased()
        if t.hasPrefix("0x") { return Int(t.dropFirst(2), radix: 16) }
        return Int(t)
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
