import Glibc
import MoonRunnerCore
import MoonRunnerSystem

/// A battery the kernel already drives: `/sys/class/power_supply/NAME/`
/// (Documentation/ABI/testing/sysfs-class-power), which covers every gauge
/// with a Linux driver (a MAX17048 bound to the kernel's max17040 driver, the
/// charger chips of UPS boards, a laptop's battery).
///
/// Each read takes `status`, `capacity` (percent), `voltage_now` (µV) and
/// `current_now` (µA) as far as the driver provides them; at least a
/// capacity or a voltage must be there. Drivers disagree on the current's sign
/// (the ABI asks for negative while discharging, many report a magnitude),
/// so its magnitude is taken and `status` says which way it flows.
public final class PowerSupplyGauge: BatteryGauge {
    /// The kernel's folder of power supplies (`battery.power_supply_dir` moves it for tests).
    public static let defaultRoot = "/sys/class/power_supply"
    public private(set) var model: GaugeModel?
    public let folder: String

    public init(folder: String) {
        self.folder = folder
    }

    public var label: String { "power_supply \(folder)" }

    /// The supplies of type Battery under `root`, by name.
    public static func batteries(under root: String) -> [String] {
        guard let dir = opendir(root) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard !name.hasPrefix(".") else { continue }
            if (try? text("\(root)/\(name)/type")) == "Battery" { names.append(name) }
        }
        return names.sorted()
    }

    public func initialize() throws(GaugeError) {
        model = nil
        let type = try Self.text("\(folder)/type")
        guard type == "Battery" else {
            throw .unknownDevice("\(folder) is a power supply of type \(type), not Battery")
        }
        _ = try read(checking: true)
        model = .powerSupply
    }

    public func read() throws(GaugeError) -> GaugeSample {
        guard model != nil else { throw .notInitialized }
        return try read(checking: false)
    }

    private func read(checking: Bool) throws(GaugeError) -> GaugeSample {
        if let present = try? Self.number("\(folder)/present"), present == 0 { throw .noBattery }
        let status = (try? Self.text("\(folder)/status")) ?? "Unknown"
        let capacity = try? Self.number("\(folder)/capacity")
        let microvolts = try? Self.number("\(folder)/voltage_now")
        let microamps = try? Self.number("\(folder)/current_now")
        guard capacity != nil || microvolts != nil else {
            throw .file("\(folder) has neither capacity nor voltage_now: nothing to tell the charge by")
        }
        let charging: Bool? = switch status {
        case "Charging", "Full": true
        case "Discharging", "Not charging": false
        default: nil
        }
        let magnitude = microamps.map { abs(Double($0)) / 1e6 } ?? .nan
        let current = charging == true ? -magnitude : magnitude
        // Integers all the way: a Double of a value near Int64.max does not convert back.
        let raw = UInt64(truncatingIfNeeded: capacity ?? 0) << 48
            ^ UInt64(truncatingIfNeeded: microvolts ?? 0) << 16 ^ UInt64(truncatingIfNeeded: microamps ?? 0)
        return GaugeSample(percent: capacity.map { Double(min(max($0, 0), 100)) } ?? .nan,
                           volts: microvolts.map { Double($0) / 1e6 } ?? .nan, current: current, charging: charging,
                           raw: raw)
    }

    /// A sysfs attribute's text, without its newline.
    static func text(_ path: String) throws(GaugeError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .file("cannot read \(path): \(MoonRunnerSystem.errnoText(errno))") }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard n >= 0 else { throw .file("cannot read \(path): \(MoonRunnerSystem.errnoText(errno))") }
        return String(decoding: buffer.prefix(n), as: UTF8.self).trimmingWhitespace()
    }

    /// A sysfs attribute holding an integer.
    static func number(_ path: String) throws(GaugeError) -> Int64 {
        let t = try text(path)
        guard let v = Int64(t) else { throw .file("\(path) holds '\(t)', not a number") }
        return v
    }
}
