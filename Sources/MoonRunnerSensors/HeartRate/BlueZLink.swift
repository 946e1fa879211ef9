import MoonRunnerCore

/// What the BlueZ client knows of bluetoothd's objects, and the decision of
/// what to ask it next: the heart-rate strap's link as a state machine. Pure:
/// D-Bus traffic comes in as events, calls go out as values, time is an
/// argument. `BlueZClient` only turns these into sd-bus messages and back.
///
/// The sequence BlueZ 5.66 wants: every object from `GetManagedObjects`
/// (the signal matches are in place before it, so nothing falls between);
/// a device offering the Heart Rate service (0x180D), else
/// `SetDiscoveryFilter` (LE, 0x180D) and `StartDiscovery` until one appears;
/// `StopDiscovery` and `Device1.Connect`; `Connected` and `ServicesResolved`
/// true *and* the measurement characteristic (0x2A37) exported under the
/// device (BlueZ can say `ServicesResolved` before the objects arrive);
/// `StartNotify`; then `PropertiesChanged` on `Value`, one per measurement.
///
/// Every drop of the link — `Connected` or `ServicesResolved` false, the
/// characteristic or the device removed, the adapter switched off,
/// bluetoothd leaving the bus — starts a new *attempt*: whatever was asked
/// in an earlier attempt is answered into the void (a `StartNotify` that
/// succeeds after its characteristic went away must not leave the client
/// waiting on a dead object), and `Connect` is asked again after
/// `DeviceRecovery`'s back-off (0.5 s doubling to 4 s, back to 0.5 s once
/// notifications flow). Nothing waits without a deadline: a connection
/// whose characteristic never appears, a subscription that never delivers,
/// a strap that falls silent — each ends in a `Disconnect` and a new
/// attempt. So from any order of signals and replies the link ends either
/// connected or retrying.
///
/// Cost: O(objects) per event, nothing per notification but a comparison.
struct BlueZLink {
    /// One D-Bus method call to make; `token` comes back with its reply.
    struct Call: Equatable, Sendable {
        enum Kind: Equatable, Sendable {
            case getManagedObjects, setDiscoveryFilter, startDiscovery, stopDiscovery, powerOn, connect, disconnect,
                 startNotify
        }

        var token: Int
        var kind: Kind
        /// The object it is made on (`/` for GetManagedObjects).
        var path: String
    }

    /// An object's interfaces and their properties, as D-Bus gives them.
    typealias Interfaces = [String: [String: DBusValue]]

    static let serviceUUID = "0000180d-0000-1000-8000-00805f9b34fb"
    static let measurementUUID = "00002a37-0000-1000-8000-00805f9b34fb"
    /// Seconds without a notification before the strap is lost (the issue's
    /// 5 s), and before its link is disconnected and started over.
    static let silenceLost = 5.0
    static let silenceRestart = 20.0
    /// Seconds a connection may take to show the characteristic (a strap
    /// resolves its three or four services in well under 2 s), and a new
    /// subscription to deliver its first notification (straps send every
    /// beat, at least once a second): past either the attempt is started over,
    /// well inside the issue's 10 s from the strap's return.
    static let resolveTimeout = 8.0
    static let firstNotificationTimeout = 5.0
    static let policy = DeviceRecovery.Policy(initialBackoff: 0.5, maxBackoff: 4, degradedHold: 5,
                                              lostAfter: silenceLost, maxConsecutiveFaults: 1)

    private struct Device {
        var address = ""
        var name: String?
        var uuids: [String] = []
        var rssi: Int64?
        var connected = false
        var servicesResolved = false
    }

    private enum Daemon { case unknown, absent, present }

    private struct Pending {
        var kind: Call.Kind
        var path: String
        var attempt: Int
    }

    /// The configured strap's address (upper case); nil: any (`ble:auto`).
    let wanted: String?
    /// The strap chosen once under `ble:auto` and kept, so that a runner passing by is never picked up.
    private(set) var chosenAddress: String?

    private var daemon = Daemon.unknown
    private var objectsLoaded = false
    private var adapter: String?
    private var adapterPowered = false
    private var adapterDiscovering = false
    private var devices: [String: Device] = [:]
    /// Measurement characteristic path → its device's path.
    private var characteristics: [String: String] = [:]
    private var target: String?

    private var attempt = 0
    private var pending: [Int: Pending] = [:]
    private var nextToken = 1
    /// The characteristic `StartNotify` succeeded on in this attempt.
    private var subscribed: String?
    private var subscribedAt = 0.0
    private var deliveredThisAttempt = false
    private var lastNotification = -Double.infinity
    /// When the target was first seen connected in this attempt.
    private var connectedAt: Double?

    private var recovery: DeviceRecovery
    private var daemonRetry: DeviceRecovery
    private var everDelivered = false
    private(set) var link = HeartRateLinkState.searching
    /// Why the link last dropped, or what last failed.
    private(set) var lastError: String?
    /// A word on the strap once it delivers: "Polar H10 (AA:BB:…)".
    private(set) var deviceName: String?
    /// Link changes this machine went through (each counted once).
    private(set) var connects = 0

    init(wanted: String?, at t: Double) {
        self.wanted = wanted?.uppercased()
        recovery = DeviceRecovery(policy: Self.policy, now: t)
        daemonRetry = DeviceRecovery(policy: Self.policy, now: t)
    }

    /// `ok`, `degraded` (bluetoothd, the adapter or power missing: retried) or `lost` (the strap had
    /// delivered and no longer does); always consistent with `link`.
    var health: String {
        if daemon != .present || !objectsLoaded || adapter == nil || !adapterPowered { return "degraded" }
        return link == .lost ? "lost" : "ok"
    }

    /// Why the state is degraded, for `last_error` when nothing else went wrong.
    private var degradedReason: String? {
        switch daemon {
        case .absent: return "bluetoothd is not on the system bus"
        case .unknown: return nil
        case .present:
            guard objectsLoaded else { return nil }
            if adapter == nil { return "BlueZ has no Bluetooth adapter" }
            if !adapterPowered { return "the Bluetooth adapter is off" }
            return nil
        }
    }

    // MARK: Events

    /// The bus connection was opened (again): everything is asked afresh.
    mutating func busOpened(at t: Double) {
        forget(at: t, why: nil)
        daemon = .unknown
    }

    /// The bus connection is gone: nothing asked will be answered.
    mutating func busClosed(at t: Double) {
        forget(at: t, why: "the system bus connection closed")
        pending = [:]
        daemon = .unknown
    }

    /// `NameOwnerChanged` for `org.bluez`.
    mutating func bluezOwner(present: Bool, at t: Double) {
        forget(at: t, why: present ? nil : "bluetoothd left the system bus")
        // What the old bluetoothd was asked is answered by the bus with an error: ignored.
        pending = [:]
        daemon = present ? .present : .absent
        if present { daemonRetry.delivered(at: t) }
    }

    mutating func interfacesAdded(_ path: String, _ interfaces: Interfaces, at t: Double) {
        add(path, interfaces)
    }

    mutating func interfacesRemoved(_ path: String, _ names: [String], at t: Double) {
        if names.contains("org.bluez.GattCharacteristic1"), characteristics.removeValue(forKey: path) != nil {
            if subscribed == path || pendingNotify(on: path) { drop(at: t, why: "the strap's characteristic went away") }
        }
        if names.contains("org.bluez.Device1"), devices.removeValue(forKey: path) != nil {
            characteristics = characteristics.filter { $0.value != path }
            if target == path {
                drop(at: t, why: "BlueZ forgot the strap")
                target = nil
            }
        }
        if names.contains("org.bluez.Adapter1"), adapter == path {
            drop(at: t, why: "the Bluetooth adapter went away")
            adapter = nil
            adapterPowered = false
            adapterDiscovering = false
        }
    }

    mutating func propertiesChanged(_ path: String, _ interface: String, _ values: [String: DBusValue], at t: Double) {
        switch interface {
        case "org.bluez.Device1":
            guard var d = devices[path] else { return }
            if let v = values["Connected"]?.bool { d.connected = v }
            if let v = values["ServicesResolved"]?.bool { d.servicesResolved = v }
            if let v = values["RSSI"]?.int { d.rssi = v }
            if let v = values["UUIDs"] { d.uuids = v.strings.map { $0.lowercased() } }
            if let v = values["Name"]?.string { d.name = v }
            devices[path] = d
            guard path == target else { return }
            if values["Connected"]?.bool == false {
                drop(at: t, why: "the strap disconnected")
            } else if values["ServicesResolved"]?.bool == false {
                drop(at: t, why: "the strap's services are no longer resolved")
            }
        case "org.bluez.Adapter1":
            guard path == adapter else { return }
            if let v = values["Powered"]?.bool {
                adapterPowered = v
                if !v { drop(at: t, why: "the Bluetooth adapter was switched off") }
            }
            if let v = values["Discovering"]?.bool { adapterDiscovering = v }
        default:
            break
        }
    }

    /// A method reply (`error` nil) or error for the call with `token`; an
    /// answer to a call that could not be sent is an error too.
    mutating func replied(_ token: Int, error: String?, objects: [String: Interfaces]? = nil, at t: Double) {
        guard let p = pending.removeValue(forKey: token) else { return }
        switch p.kind {
        case .getManagedObjects:
            if let error {
                daemon = .absent
                if !error.contains("ServiceUnknown") && !error.contains("NameHasNoOwner") {
                    lastError = "GetManagedObjects: \(error)"
                }
                daemonRetry.scheduleReinit(at: t)
                return
            }
            load(objects ?? [:], at: t)
        case .connect:
            guard p.attempt == attempt, let error else { return }
            // Already connected is not a failure: the properties say so.
            guard !error.contains("AlreadyConnected") else { return }
            lastError = "Connect \(devices[p.path]?.address ?? p.path): \(error)"
            // The next Connect waits the back-off (BlueZ's own attempt has ended).
            recovery.scheduleReinit(at: t)
        case .startNotify:
            guard p.attempt == attempt else { return }
            // InProgress: BlueZ already holds this client's subscription (a
            // bonded strap's objects outlive its connections).
            if let error, !error.contains("InProgress") {
                lastError = "StartNotify: \(error)"
                let device = characteristics[p.path]
                drop(at: t, why: lastError)
                if let device { disconnect(device) }
                return
            }
            subscribed = p.path
            subscribedAt = t
            deliveredThisAttempt = false
            lastNotification = t
        case .startDiscovery:
            if let error, !error.contains("InProgress") {
                lastError = "StartDiscovery: \(error)"
                recovery.scheduleReinit(at: t)
            }
        case .setDiscoveryFilter, .stopDiscovery, .disconnect, .powerOn:
            if let error, !error.contains("NotConnected"), !error.contains("No discovery started") {
                lastError = "\(p.kind): \(error)"
            }
        }
    }

    /// A `Value` change under `path`: true when it is the strap's measurement in
    /// this attempt (then `readable` says whether it parsed); others are ignored.
    mutating func notification(_ path: String, readable: Bool, at t: Double) -> Bool {
        guard path == subscribed || pendingNotify(on: path) else { return false }
        lastNotification = t
        guard readable else { return true }
        if subscribed == nil {
            // Notifications before the StartNotify reply: it succeeded.
            subscribed = path
            subscribedAt = t
            pending = pending.filter { !($0.value.kind == .startNotify && $0.value.path == path) }
        }
        deliveredThisAttempt = true
        if link != .connected {
            everDelivered = true
            connects += 1
            if let target, let d = devices[target] {
                if wanted == nil, chosenAddress == nil { chosenAddress = d.address.uppercased() }
                deviceName = "\(d.name ?? "strap") (\(d.address))"
            }
            link = .connected
        }
        return true
    }

    // MARK: Deciding

    /// The calls to make now, given everything known; each is asked once.
    mutating func next(at t: Double) -> [Call] {
        var calls = takeQueued()
        func call(_ kind: Call.Kind, _ path: String) {
            let token = nextToken
            nextToken += 1
            pending[token] = Pending(kind: kind, path: path, attempt: attempt)
            calls.append(Call(token: token, kind: kind, path: path))
        }
        let asking = pending.values.contains { $0.kind == .getManagedObjects }
        switch daemon {
        case .unknown:
            if !asking { call(.getManagedObjects, "/") }
            return calls
        case .absent:
            // Each failed GetManagedObjects scheduled the next (0.5 s doubling to 4 s).
            if !asking, daemonRetry.wait(at: t) == nil { call(.getManagedObjects, "/") }
            return calls
        case .present:
            if !objectsLoaded {
                if !asking { call(.getManagedObjects, "/") }
                return calls
            }
        }
        guard let adapter else { return calls }
        guard adapterPowered else {
            if !pending.values.contains(where: { $0.kind == .powerOn }), recovery.wait(at: t) == nil {
                recovery.scheduleReinit(at: t)
                call(.powerOn, adapter)
            }
            return calls
        }

        if let characteristic = subscribed {
            let silent = t - lastNotification
            if link == .connected, silent >= Self.silenceLost {
                link = .lost
                lastError = "no notification for \(Int(Self.silenceLost)) s"
            }
            let limit = deliveredThisAttempt ? Self.silenceRestart : Self.firstNotificationTimeout
            guard silent >= limit else { return calls }
            let device = characteristics[characteristic]
            drop(at: t, why: "no notification for \(Int(limit)) s: starting the link over")
            if let device { call(.disconnect, device) }
            return calls
        }

        if target == nil || devices[target ?? ""] == nil { target = chooseDevice() }
        guard let target, let device = devices[target] else {
            let discoveryAsked = pending.values.contains { $0.kind == .startDiscovery }
            if !adapterDiscovering, !discoveryAsked, recovery.wait(at: t) == nil {
                call(.setDiscoveryFilter, adapter)
                call(.startDiscovery, adapter)
            }
            return calls
        }
        // A Disconnect asked for is awaited before anything else is asked of the strap.
        if pending.values.contains(where: { $0.kind == .disconnect && $0.path == target }) { return calls }
        guard device.connected else {
            connectedAt = nil
            let connecting = pending.values.contains { $0.kind == .connect && $0.attempt == attempt }
            guard !connecting, recovery.wait(at: t) == nil else { return calls }
            if adapterDiscovering, !pending.values.contains(where: { $0.kind == .stopDiscovery }) {
                call(.stopDiscovery, adapter)
            }
            call(.connect, target)
            return calls
        }
        let since = connectedAt ?? t
        connectedAt = since
        if device.servicesResolved, let characteristic = characteristics.first(where: { $0.value == target })?.key {
            if !pendingNotify(on: characteristic) { call(.startNotify, characteristic) }
            return calls
        }
        if t - since >= Self.resolveTimeout {
            drop(at: t, why: "the strap's heart-rate characteristic did not appear within \(Int(Self.resolveTimeout)) s",
                 force: true)
            call(.disconnect, target)
        }
        return calls
    }

    /// The next instant something falls due without traffic (a back-off's end, a silence limit).
    func deadline(at t: Double) -> Double {
        var d = t + 60
        func due(_ w: Double?) { if let w { d = min(d, t + w) } }
        switch daemon {
        case .absent: due(daemonRetry.wait(at: t) ?? 0)
        case .unknown: break
        case .present:
            due(recovery.wait(at: t))
            if subscribed != nil {
                if link == .connected { d = min(d, lastNotification + Self.silenceLost) }
                d = min(d, lastNotification + (deliveredThisAttempt ? Self.silenceRestart : Self.firstNotificationTimeout))
            } else if let c = connectedAt {
                d = min(d, c + Self.resolveTimeout)
            }
        }
        return max(t, d)
    }

    /// Calls answered into the void once the attempt they belong to is over: ignored, still counted.
    var outstanding: Int { pending.count }

    // MARK: Bookkeeping

    private func pendingNotify(on path: String) -> Bool {
        pending.values.contains { $0.kind == .startNotify && $0.path == path && $0.attempt == attempt }
    }

    /// The configured strap, else the one chosen before, else the nearest advertising the Heart Rate service.
    private func chooseDevice() -> String? {
        if let address = wanted ?? chosenAddress {
            return devices.first { $0.value.address.uppercased() == address }?.key
        }
        let straps = devices.filter { $0.value.uuids.contains(Self.serviceUUID) }
        return straps.max { ($0.value.rssi ?? -200, $1.key) < ($1.value.rssi ?? -200, $0.key) }?.key
    }

    /// The link is down: a new attempt, after the back-off. Idempotent: a
    /// second signal of the same drop (Connected after ServicesResolved)
    /// changes nothing.
    /// Only what this client asked for makes an attempt (a connection merely
    /// waiting for its characteristic is not one, unless `force`d: its own
    /// timeout), so the signals of one drop arriving with a step between them
    /// double nothing.
    private mutating func drop(at t: Double, why: String?, force: Bool = false) {
        let active = force || subscribed != nil
            || pending.values.contains { ($0.kind == .connect || $0.kind == .startNotify) && $0.attempt == attempt }
        let delivered = deliveredThisAttempt
        subscribed = nil
        connectedAt = nil
        deliveredThisAttempt = false
        if link == .connected { link = .lost }
        if let why { lastError = why }
        guard active else { return }
        attempt += 1
        // A link that had delivered is tried again after the shortest wait; an
        // attempt that never delivered doubles it.
        if delivered { recovery.delivered(at: t) }
        recovery.scheduleReinit(at: t)
    }

    /// A `Disconnect` outside `next` (after a failed StartNotify).
    private mutating func disconnect(_ device: String) {
        pending[nextToken] = Pending(kind: .disconnect, path: device, attempt: attempt)
        queued.append(Call(token: nextToken, kind: .disconnect, path: device))
        nextToken += 1
    }

    /// Calls decided while handling an event, sent with the next `next`.
    private var queued: [Call] = []

    /// Takes the calls decided while handling events.
    mutating func takeQueued() -> [Call] {
        defer { queued = [] }
        return queued
    }

    /// Everything known of bluetoothd's objects goes (it left, or the bus did).
    private mutating func forget(at t: Double, why: String?) {
        drop(at: t, why: why)
        if !everDelivered { link = .searching }
        objectsLoaded = false
        adapter = nil
        adapterPowered = false
        adapterDiscovering = false
        devices = [:]
        characteristics = [:]
        target = nil
    }

    private mutating func load(_ objects: [String: Interfaces], at t: Double) {
        let subscribedBefore = subscribed
        let targetBefore = target
        devices = [:]
        characteristics = [:]
        adapter = nil
        adapterPowered = false
        adapterDiscovering = false
        // Adapters first, then devices, then what lies under them.
        for (path, interfaces) in objects.sorted(by: { $0.key < $1.key }) { add(path, interfaces) }
        daemon = .present
        objectsLoaded = true
        if let s = subscribedBefore, characteristics[s] == nil { drop(at: t, why: "the strap's characteristic went away") }
        if let d = targetBefore, devices[d] == nil {
            drop(at: t, why: "BlueZ forgot the strap")
            target = nil
        }
        if let d = target, devices[d]?.connected != true, subscribed != nil || connectedAt != nil {
            drop(at: t, why: "the strap disconnected")
        }
    }

    private mutating func add(_ path: String, _ interfaces: Interfaces) {
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
        if let c = interfaces["org.bluez.GattCharacteristic1"], c["UUID"]?.string?.lowercased() == Self.measurementUUID,
           let device = devices.keys.first(where: { path.hasPrefix($0 + "/") }) {
            characteristics[path] = device
        }
    }

    /// The degraded reason, else the last error.
    var problem: String? { degradedReason ?? lastError }
}
