import MoonRunnerCore

/// The heart-rate strap's link to bluetoothd as a pure state machine: D-Bus
/// traffic comes in as events, calls go out as values, time is an argument
/// (`BlueZClient` turns them into sd-bus messages). What BlueZ reports is in
/// `BlueZObjects`, the calls awaiting an answer in `BlueZCalls`.
///
/// The sequence BlueZ 5.66 wants: `GetManagedObjects` (after the signal
/// matches); a device with the Heart Rate service (0x180D), else discovery
/// filtered to it; `Connect`; `ServicesResolved` *and* the 0x2A37
/// characteristic's object (BlueZ can say resolved before the objects come);
/// `StartNotify`. Every drop starts a new attempt (earlier replies go into the
/// void) after `DeviceRecovery`'s back-off (0.5 s doubling to 4 s), and every
/// wait has a deadline, so the link ends connected or retrying. O(objects).
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
    typealias Interfaces = BlueZObjects.Interfaces

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

    private enum Daemon { case unknown, absent, present }

    /// The configured strap's address (upper case); nil: any (`ble:auto`).
    let wanted: String?
    /// The strap chosen once under `ble:auto` and kept, so that a runner passing by is never picked up.
    private(set) var chosenAddress: String?

    private var daemon = Daemon.unknown
    private var objects = BlueZObjects()
    /// The strap's device path, once one is chosen.
    private var target: String?

    private var attempt = 0
    private var calls = BlueZCalls()
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
    var health: IMUHealth {
        if daemon != .present || !objects.loaded || objects.adapter == nil || !objects.adapterPowered { return .degraded }
        return link == .lost ? .lost : .ok
    }

    /// Why the state is degraded, for `last_error` when nothing else went wrong.
    private var degradedReason: String? {
        switch daemon {
        case .absent: return "bluetoothd is not on the system bus"
        case .unknown: return nil
        case .present:
            guard objects.loaded else { return nil }
            if objects.adapter == nil { return "BlueZ has no Bluetooth adapter" }
            if !objects.adapterPowered { return "the Bluetooth adapter is off" }
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
        calls.abandon()
        daemon = .unknown
    }

    /// `NameOwnerChanged` for `org.bluez`.
    mutating func bluezOwner(present: Bool, at t: Double) {
        forget(at: t, why: present ? nil : "bluetoothd left the system bus")
        // What the old bluetoothd was asked is answered by the bus with an error: ignored.
        calls.abandon()
        daemon = present ? .present : .absent
        if present { daemonRetry.delivered(at: t) }
    }

    mutating func interfacesAdded(_ path: String, _ interfaces: Interfaces, at t: Double) {
        objects.add(path, interfaces)
    }

    mutating func interfacesRemoved(_ path: String, _ names: [String], at t: Double) {
        if names.contains("org.bluez.GattCharacteristic1"), objects.removeCharacteristic(path) {
            if subscribed == path || pendingNotify(on: path) { drop(at: t, why: "the strap's characteristic went away") }
        }
        if names.contains("org.bluez.Device1"), objects.removeDevice(path), target == path {
            drop(at: t, why: "BlueZ forgot the strap")
            target = nil
        }
        if names.contains("org.bluez.Adapter1"), objects.removeAdapter(path) {
            drop(at: t, why: "the Bluetooth adapter went away")
        }
    }

    mutating func propertiesChanged(_ path: String, _ interface: String, _ values: [String: DBusValue], at t: Double) {
        switch interface {
        case "org.bluez.Device1":
            guard objects.changeDevice(path, values), path == target else { return }
            if values["Connected"]?.bool == false {
                drop(at: t, why: "the strap disconnected")
            } else if values["ServicesResolved"]?.bool == false {
                drop(at: t, why: "the strap's services are no longer resolved")
            }
        case "org.bluez.Adapter1":
            guard path == objects.adapter else { return }
            objects.changeAdapter(path, values)
            if values["Powered"]?.bool == false { drop(at: t, why: "the Bluetooth adapter was switched off") }
        default:
            break
        }
    }

    /// A method reply (`error` nil) or error for the call with `token`; an
    /// answer to a call that could not be sent is an error too.
    mutating func replied(_ token: Int, error: String?, objects answer: [String: Interfaces]? = nil, at t: Double) {
        guard let p = calls.answer(token) else { return }
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
            load(answer ?? [:], at: t)
        case .connect:
            guard p.attempt == attempt, let error else { return }
            // Already connected is not a failure: the properties say so.
            guard !error.contains("AlreadyConnected") else { return }
            lastError = "Connect \(objects.devices[p.path]?.address ?? p.path): \(error)"
            // The next Connect waits the back-off (BlueZ's own attempt has ended).
            recovery.scheduleReinit(at: t)
        case .startNotify:
            guard p.attempt == attempt else { return }
            // InProgress: BlueZ already holds this client's subscription (a
            // bonded strap's objects outlive its connections).
            if let error, !error.contains("InProgress") {
                lastError = "StartNotify: \(error)"
                let device = objects.characteristics[p.path]
                drop(at: t, why: lastError)
                if let device { ask(.disconnect, device) }
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
            calls.settleNotify(on: path)
        }
        deliveredThisAttempt = true
        if link != .connected {
            everDelivered = true
            connects += 1
            if let target, let d = objects.devices[target] {
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
        decide(at: t)
        return calls.take()
    }

    /// One step of the sequence above: the first thing missing is asked for.
    private mutating func decide(at t: Double) {
        guard objectsKnown(at: t), let adapter = objects.adapter, adapterOn(adapter, at: t) else { return }
        if let characteristic = subscribed {
            watchSilence(of: characteristic, at: t)
            return
        }
        if target == nil || objects.devices[target ?? ""] == nil { target = objects.choose(address: wanted ?? chosenAddress) }
        guard let target, let device = objects.devices[target] else {
            discover(on: adapter, at: t)
            return
        }
        // A Disconnect asked for is awaited before anything else is asked of the strap.
        if calls.asking(.disconnect, on: target) { return }
        guard device.connected else {
            connect(target, on: adapter, at: t)
            return
        }
        subscribe(to: target, device, at: t)
    }

    /// True once bluetoothd's objects are loaded; until then `GetManagedObjects` is asked.
    private mutating func objectsKnown(at t: Double) -> Bool {
        let asking = calls.asking(.getManagedObjects)
        switch daemon {
        case .unknown:
            if !asking { ask(.getManagedObjects, "/") }
            return false
        case .absent:
            // Each failed GetManagedObjects scheduled the next (0.5 s doubling to 4 s).
            if !asking, daemonRetry.wait(at: t) == nil { ask(.getManagedObjects, "/") }
            return false
        case .present:
            if !objects.loaded, !asking { ask(.getManagedObjects, "/") }
            return objects.loaded
        }
    }

    /// True when the adapter is powered; else it is switched on, after the back-off.
    private mutating func adapterOn(_ adapter: String, at t: Double) -> Bool {
        guard !objects.adapterPowered else { return true }
        if !calls.asking(.powerOn), recovery.wait(at: t) == nil {
            recovery.scheduleReinit(at: t)
            ask(.powerOn, adapter)
        }
        return false
    }

    /// Subscribed: a silent strap is lost, and past its limit its link is started over.
    private mutating func watchSilence(of characteristic: String, at t: Double) {
        let silent = t - lastNotification
        if link == .connected, silent >= Self.silenceLost {
            link = .lost
            lastError = "no notification for \(Int(Self.silenceLost)) s"
        }
        let limit = deliveredThisAttempt ? Self.silenceRestart : Self.firstNotificationTimeout
        guard silent >= limit else { return }
        let device = objects.characteristics[characteristic]
        drop(at: t, why: "no notification for \(Int(limit)) s: starting the link over")
        if let device { ask(.disconnect, device) }
    }

    /// No strap known: discovery for the Heart Rate service, after the back-off.
    private mutating func discover(on adapter: String, at t: Double) {
        if !objects.adapterDiscovering, !calls.asking(.startDiscovery), recovery.wait(at: t) == nil {
            ask(.setDiscoveryFilter, adapter)
            ask(.startDiscovery, adapter)
        }
    }

    /// The strap is known and not connected: `Connect`, once per attempt and after the back-off.
    private mutating func connect(_ target: String, on adapter: String, at t: Double) {
        connectedAt = nil
        guard !calls.asking(.connect, in: attempt), recovery.wait(at: t) == nil else { return }
        if objects.adapterDiscovering, !calls.asking(.stopDiscovery) { ask(.stopDiscovery, adapter) }
        ask(.connect, target)
    }

    /// Connected: `StartNotify` once the characteristic is there, else a `Disconnect` when it is late.
    private mutating func subscribe(to target: String, _ device: BlueZObjects.Device, at t: Double) {
        let since = connectedAt ?? t
        connectedAt = since
        if device.servicesResolved, let characteristic = objects.characteristic(of: target) {
            if !pendingNotify(on: characteristic) { ask(.startNotify, characteristic) }
            return
        }
        if t - since >= Self.resolveTimeout {
            drop(at: t, why: "the strap's heart-rate characteristic did not appear within \(Int(Self.resolveTimeout)) s",
                 force: true)
            ask(.disconnect, target)
        }
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
    var outstanding: Int { calls.count }

    // MARK: Bookkeeping

    private func pendingNotify(on path: String) -> Bool {
        calls.asking(.startNotify, on: path, in: attempt)
    }

    /// A call in this attempt, sent with the next `next`.
    private mutating func ask(_ kind: Call.Kind, _ path: String) {
        calls.ask(kind, path, attempt: attempt)
    }

    /// The link is down: a new attempt, after the back-off. Idempotent: a
    /// second signal of the same drop (Connected after ServicesResolved)
    /// changes nothing.
    /// Only what this client asked for makes an attempt (a connection merely
    /// waiting for its characteristic is not one, unless `force`d: its own
    /// timeout), so the signals of one drop arriving with a step between them
    /// double nothing.
    private mutating func drop(at t: Double, why: String?, force: Bool = false) {
        let active = force || subscribed != nil || calls.asking(.connect, in: attempt)
            || calls.asking(.startNotify, in: attempt)
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

    /// Everything known of bluetoothd's objects goes (it left, or the bus did).
    private mutating func forget(at t: Double, why: String?) {
        drop(at: t, why: why)
        if !everDelivered { link = .searching }
        objects = BlueZObjects()
        target = nil
    }

    private mutating func load(_ answer: [String: Interfaces], at t: Double) {
        let subscribedBefore = subscribed
        let targetBefore = target
        objects = BlueZObjects(loading: answer)
        daemon = .present
        if let s = subscribedBefore, objects.characteristics[s] == nil {
            drop(at: t, why: "the strap's characteristic went away")
        }
        if let d = targetBefore, objects.devices[d] == nil {
            drop(at: t, why: "BlueZ forgot the strap")
            target = nil
        }
        if let d = target, objects.devices[d]?.connected != true, subscribed != nil || connectedAt != nil {
            drop(at: t, why: "the strap disconnected")
        }
    }

    /// The degraded reason, else the last error.
    var problem: String? { degradedReason ?? lastError }
}
