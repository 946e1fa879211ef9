/// Where the daemon reads the battery, as written in the config (`battery.source`):
///
/// * `none`: no gauge;
/// * `auto` (the default): the one battery the kernel's power_supply class
///   lists, else none (two are ambiguous, so neither is taken);
/// * `power_supply` or `power_supply:/sys/class/power_supply/NAME`: a gauge
///   with a kernel driver;
/// * `i2c:/dev/i2c-1@0x36`: a MAX17043/MAX17048 (0x36), or an INA219
///   (0x40–0x4F) with the charge estimated from its voltage and current;
/// * `emulated:MODEL[,percent=P][,load=A][,capacity=AH][,fault=KIND@START+SECONDS…]`:
///   the register-level emulator of MODEL (`MAX17043`, `MAX17048`, `INA219`)
///   on a cell draining on the engine clock; faults `eio`, `nack`, `chipid`,
///   `stuck`, `jump`.
public enum BatterySourceSpec: Sendable, Equatable, CustomStringConvertible {
    case none
    case auto
    /// nil: the one battery under /sys/class/power_supply.
    case powerSupply(folder: String?)
    case i2c(path: String, address: UInt8)
    case emulated(model: GaugeModel, cell: CellModel, faults: [ScheduledFault])

    /// Fault kinds an emulated gauge can schedule.
    public static let faultKinds: [ScheduledFault.Kind] = [.eio, .nack, .chipid, .stuck, .jump]

    public var description: String {
        switch self {
        case .none: return "none"
        case .auto: return "auto"
        case let .powerSupply(folder): return folder.map { "power_supply:\($0)" } ?? "power_supply"
        case let .i2c(path, address): return SourceSpecGrammar.describe(.i2c(path: path, address: address))
        case let .emulated(model, cell, faults):
            var parts = ["emulated:\(model)", "percent=\(cell.startPercent)", "load=\(cell.load)",
                         "capacity=\(cell.capacityAh)"]
            parts += faults.map { "fault=\($0)" }
            return parts.joined(separator: ",")
        }
    }

    /// Parses a spec string; the error says what is wrong with which part.
    public static func parse(_ text: String) throws(BatterySourceSpecError) -> BatterySourceSpec {
        let spec = text.trimmingWhitespace()
        do throws(SourceSpecGrammar.Failure) {
            switch spec {
            case "none": return .none
            case "auto": return .auto
            case "power_supply": return .powerSupply(folder: nil)
            default: break
            }
            if spec.hasPrefix("power_supply:") {
                let folder = String(spec.dropFirst(13))
                guard folder.hasPrefix("/") else { throw SourceSpecGrammar.Failure("expected a folder such as /sys/class/power_supply/BAT0") }
                return .powerSupply(folder: folder)
            }
            if spec.hasPrefix("emulated:") { return try emulated(String(spec.dropFirst(9))) }
            guard case let .i2c(path, address)? = try SourceSpecGrammar.parse(spec, defaultAddress: MAX1704xRegister.address,
                                                                               example: "0x36") else {
                throw SourceSpecGrammar.Failure("expected 'none', 'auto', 'power_supply[:FOLDER]', 'i2c:/dev/i2c-N@0x36' "
                                                + "or 'emulated:MAX17048'")
            }
            guard address == MAX1704xRegister.address || INA219Register.addresses.contains(address) else {
                throw SourceSpecGrammar.Failure("a MAX1704x answers at 0x36 and an INA219 at 0x40…0x4F, not \(I2CError.hex(address))")
            }
            return .i2c(path: path, address: address)
        } catch {
            throw BatterySourceSpecError(spec: text, reason: error.reason)
        }
    }

    private static func emulated(_ text: String) throws(SourceSpecGrammar.Failure) -> BatterySourceSpec {
        let parts = text.split(separator: ",").map { String($0).trimmingWhitespace() }
        let models = GaugeModel.allCases.filter { $0 != .powerSupply }
        guard let name = parts.first, let model = models.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else {
            throw SourceSpecGrammar.Failure("emulated: expects a gauge, one of " + models.map(\.rawValue).joined(separator: ", "))
        }
        var cell = CellModel()
        var faults: [ScheduledFault] = []
        for option in parts.dropFirst() {
            if option.hasPrefix("fault=") {
                guard let f = ScheduledFault.parse(String(option.dropFirst(6))), faultKinds.contains(f.kind) else {
                    throw SourceSpecGrammar.Failure("'\(option)' must be fault=KIND@START[+SECONDS] with KIND one of "
                                                    + faultKinds.map(\.rawValue).joined(separator: ", "))
                }
                faults.append(f)
                continue
            }
            let kv = option.split(separator: "=", maxSplits: 1).map(String.init)
            guard ["percent", "load", "capacity"].contains(kv.first ?? "") else {
                throw SourceSpecGrammar.Failure("unknown option '\(option)': use percent=, load=, capacity= or fault=")
            }
            guard kv.count == 2, let v = Double(kv[1]), v.isFinite else {
                throw SourceSpecGrammar.Failure("'\(option)' must be percent=, load=, capacity= with a number, or fault=")
            }
            switch kv[0] {
            case "percent" where (0...100).contains(v): cell.startPercent = v
            case "load": cell.load = v
            case "capacity" where v > 0: cell.capacityAh = v
            default:
                throw SourceSpecGrammar.Failure("'\(option)': percent is 0–100, capacity (Ah) above 0, load in A")
            }
        }
        return .emulated(model: model, cell: cell, faults: faults)
    }
}

/// A malformed battery source spec.
public struct BatterySourceSpecError: Error, Equatable, Sendable, CustomStringConvertible {
    public var spec: String
    public var reason: String
    public var description: String { "invalid battery source '\(spec)': \(reason)" }
}
