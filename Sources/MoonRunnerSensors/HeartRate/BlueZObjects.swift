/// bluetoothd's objects as far as the strap's link needs them: the first
/// adapter, the devices, and the heart-rate measurement characteristics under
/// them. Kept from `GetManagedObjects`, `InterfacesAdded`/`Removed` and
/// `PropertiesChanged`; it records what BlueZ reports and decides nothing, so
/// that `BlueZLink` reads as the link's state machine alone.
///
/// Cost: O(objects) per change.
struct BlueZObjects {
    /// An object's interfaces and their properties, as D-Bus gives them.
    typealias Interfaces = [String: [String: DBusValue]]

    struct Device {
        var address = ""
        var name: String?
        var uuids: [String] = []
        var rssi: Int64?
        var connected = false
        var servicesResolved = false
    }

    /// Whether the table holds a `GetManagedObjects` answer (else it holds only what signals added since).
    private(set) var loaded = false
    private(set) var adapter: String?
    private(set) var adapterPowered = false
    private(set) var adapterDiscovering = false
    private(set) var devices: [String: Device] = [:]
    /// Measurement characteristic path → its device's path.
    private(set) var characteristics: [String: String] = [:]

    /// Nothing known yet (or everything forgotten).
    init() {}

    /// Every object `GetManagedObjects` answered.
    init(loading objects: [String: Interfaces]) {
        // Adapters first, then devices, then what lies under them.
        for (path, interfaces) in objects.sorted(by: { $0.key < $1.key }) { add(path, interfaces) }
        loaded = true
    }

    /// `InterfacesAdded`, or one object of `GetManagedObjects`.
    mutating func add(_ path: String, _ interfaces: Interfaces) {
        if let a = interfaces["org.bluez.Adapter1"] {
            if adapter == nil { adapter = path }
            if adapter == path {
                adapterPowered = a["Powered"]?.bool ?? adapterPowered
                adapterDiscovering = a["Discovering"]?.bool ?? adapterDiscovering
            }
        }
        if let d = interfaces["org.bluez.Device1"] {
            var device = devices[path] ?? Device()
            device.address = d["Address"]?.string ?? device.address
            device.name = d["Name"]?.string ?? d["Alias"]?.string ?? device.name
            device.uuids = d["UUIDs"]?.strings.map { $0.lowercased() } ?? device.uuids
            device.rssi = d["RSSI"]?.int ?? device.rssi
            device.connected = d["Connected"]?.bool ?? device.connected
            device.servicesResolved = d["ServicesResolved"]?.bool ?? device.servicesResolved
            devices[path] = device
        }
        if let c = interfaces["org.bluez.GattCharacteristic1"], c["UUID"]?.string?.lowercased() == BlueZLink.measurementUUID,
           let device = devices.keys.first(where: { path.hasPrefix($0 + "/") }) {
            characteristics[path] = device
        }
    }

    /// `InterfacesRemoved` of a measurement characteristic: whether it was one.
    mutating func removeCharacteristic(_ path: String) -> Bool {
        characteristics.removeValue(forKey: path) != nil
    }

    /// `InterfacesRemoved` of a device, with the characteristics under it: whether it was one.
    mutating func removeDevice(_ path: String) -> Bool {
        guard devices.removeValue(forKey: path) != nil else { return false }
        characteristics = characteristics.filter { $0.value != path }
        return true
    }

    /// `InterfacesRemoved` of an adapter: whether it was the one in use.
    mutating func removeAdapter(_ path: String) -> Bool {
        guard adapter == path else { return false }
        adapter = nil
        adapterPowered = false
        adapterDiscovering = false
        return true
    }

    /// `PropertiesChanged` on a device: false when it is not known (then it is ignored).
    mutating func changeDevice(_ path: String, _ values: [String: DBusValue]) -> Bool {
        guard var d = devices[path] else { return false }
        if let v = values["Connected"]?.bool { d.connected = v }
        if let v = values["ServicesResolved"]?.bool { d.servicesResolved = v }
        if let v = values["RSSI"]?.int { d.rssi = v }
        if let v = values["UUIDs"] { d.uuids = v.strings.map { $0.lowercased() } }
        if let v = values["Name"]?.string { d.name = v }
        devices[path] = d
        return true
    }

    /// `PropertiesChanged` on the adapter in use (another one is ignored).
    mutating func changeAdapter(_ path: String, _ values: [String: DBusValue]) {
        guard path == adapter else { return }
        if let v = values["Powered"]?.bool { adapterPowered = v }
        if let v = values["Discovering"]?.bool { adapterDiscovering = v }
    }

    /// The measurement characteristic BlueZ exported under `device`, if any yet.
    func characteristic(of device: String) -> String? {
        characteristics.first(where: { $0.value == device })?.key
    }

    /// The device at `address` (upper case), else, with none given, the nearest advertising the Heart Rate service.
    func choose(address: String?) -> String? {
        if let address {
            return devices.first { $0.value.address.uppercased() == address }?.key
        }
        let straps = devices.filter { $0.value.uuids.contains(BlueZLink.serviceUUID) }
        return straps.max { ($0.value.rssi ?? -200, $1.key) < ($1.value.rssi ?? -200, $0.key) }?.key
    }
}
