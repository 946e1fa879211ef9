import CSystemd
import Foundation
import MoonRunnerCore
import Synchronization

/// A heart-rate strap through BlueZ on the system D-Bus (libsystemd's sd-bus).
///
/// Its own thread sleeps in `poll` on the bus's descriptor (and on an
/// eventfd that `stop()` writes): no polling loop; readings leave through an
/// `AsyncStream`. The sequence, as BlueZ 5.66 wants it:
///
/// 1. match `InterfacesAdded`/`InterfacesRemoved` (on `/`), `PropertiesChanged`
///    (under `/org/bluez`) and `NameOwnerChanged` for `org.bluez` first, then
///    `GetManagedObjects`: every object is known before anything is asked;
/// 2. a device with the Heart Rate service (0x180D) — the configured address,
///    or the strongest signal — else `SetDiscoveryFilter` (LE, 0x180D) and
///    `StartDiscovery` until one appears (discovery stops before connecting);
/// 3. `Device1.Connect`; then the Heart Rate Measurement characteristic
///    (0x2A37) under the device, which may be exported after
///    `ServicesResolved` turned true;
/// 4. `StartNotify` (the `PropertiesChanged` match is already in place, so the
///    first notification is not missed); each `Value` is one measurement.
///
/// Failures: a strap that disconnects (asleep, out of range, switched off) is
/// connected again with `DeviceRecovery`'s back-off (0.5 s doubling to 4 s),
/// found again by discovery if BlueZ dropped it; one silent for 5 s is `lost`
/// (the engine's missing), for 20 s is disconnected and started over; a
/// bluetoothd that goes (`NameOwnerChanged`) empties the object table and is
/// waited for, health `degraded`; a lost bus connection is reopened with the
/// same back-off. A notification that does not parse is counted, never a crash.
public final class BlueZClient: HeartRateSource, @unchecked Sendable {
    public let updates: AsyncStream<HeartRateUpdate>
    public let waitsForReceiver = false
    private let continuation: AsyncStream<HeartRateUpdate>.Continuation
    private let wanted: String?
    private let clock: EngineClock
    private let shared = Mutex(HeartRateSourceStatus())
    private let stopFD: Int32
    private let stopping = Atomic<Bool>(false)

    /// The Heart Rate service and its measurement characteristic (Bluetooth Assigned Numbers).
    static let serviceUUID = "0000180d-0000-1000-8000-00805f9b34fb"
    static let measurementUUID = "00002a37-0000-1000-8000-00805f9b34fb"
    /// Seconds without a notification before the strap is lost, and before its link is started over.
    static let silenceLost = 5.0
    static let silenceRestart = 20.0
    static let recoveryPolicy = DeviceRecovery.Policy(initialBackoff: 0.5, maxBackoff: 4, degradedHold: 5,
                                                      lostAfter: silenceLost, maxConsecutiveFaults: 1)

    // MARK: The bus thread's state (touched only there)

    private var bus: OpaquePointer?
    private var bluezOwner = false
    private var objectsLoaded = false
    private var adapter: String?
    private var adapterPowered = false
    private var devices: [String: Device] = [:]
    /// Characteristic path → (UUID, its device's path).
    private var characteristics: [String: String] = [:]
    private var target: String?
    /// The strap chosen once (`ble:auto` keeps to it, so a runner beside you is never picked up).
    private var chosenAddress: String?
    private var discovering = false
    private var connectPending = false
    private var notifyPending = false
    private var notifying: String?
    private var requests: [UInt64: Request] = [:]
    private var recovery: DeviceRecovery
    private var busRecovery: DeviceRecovery
    private var lastNotification = -Double.infinity
    private var link = HeartRateLinkState.searching
    private var everConnected = false

    private struct Device {
        var address = ""
        var name: String?
        var uuids: [String] = []
        var rssi: Int64?
        var connected = false
        var servicesResolved = false
    }

    private enum Request {
        case managedObjects, discoveryFilter, startDiscovery, stopDiscovery, connect(String), startNotify(String),
             disconnect, power
    }

    /// `address` nil: any strap (`ble:auto`).
    public init(address: String?, clock: EngineClock) {
        wanted = address?.uppercased()
        self.clock = clock
        stopFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        recovery = DeviceRecovery(policy: Self.recoveryPolicy, now: 0)
        busRecovery = DeviceRecovery(policy: Self.recoveryPolicy, now: 0)
        (updates, continuation) = AsyncStream.makeStream(of: HeartRateUpdate.self, bufferingPolicy: .bufferingNewest(1024))
        shared.withLock { $0.health = "degraded" }
    }

    deinit { close(stopFD) }

    public var status: HeartRateSourceStatus { shared.withLock { $0 } }

    public func start() {
        let thread = Thread { [self] in run() }
        thread.name = "moonrunner-bluez"
        thread.start()
    }

    public func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        var one: UInt64 = 1
        _ = write(stopFD, &one, 8)
    }

    private var stopped: Bool { stopping.load(ordering: .sequentiallyConsistent) }

    /// Monotonic seconds (the back-off and silence timers; the engine clock stamps readings).
    private func now() -> Double { EngineClock.monotonic() }

    // MARK: The loop

    private func run() {
        while !stopped {
            if bus == nil {
                if let wait = busRecovery.wait(at: now()) {
                    sleep(upTo: wait)
                    continue
                }
                openBus()
                if bus == nil {
                    busRecovery.scheduleReinit(at: now())
                    continue
                }
            }
            guard let b = bus else { continue }
            var r: Int32 = 1
            while r > 0 && !stopped { r = sd_bus_process(b, nil) }
            if r < 0 {
                fault("the system bus connection failed: \(String(cString: strerror(-r)))")
                closeBus()
                busRecovery.scheduleReinit(at: now())
                continue
            }
            advance()
            waitForBus(b)
        }
        closeBus()
        continuation.finish()
    }

    /// Sleeps in poll on the bus and the stop descriptor until traffic, the bus's own timeout or our next deadline.
    private func waitForBus(_ b: OpaquePointer) {
        var fds = [pollfd(fd: sd_bus_get_fd(b), events: Int16(truncatingIfNeeded: sd_bus_get_events(b)), revents: 0),
                   pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0)]
        var timeout = deadline() - now()
        var busUsec: UInt64 = 0
        if sd_bus_get_timeout(b, &busUsec) >= 0, busUsec != UInt64.max {
            timeout = min(timeout, Double(busUsec) / 1e6 - now())
        }
        let ms = Int32(max(0, min(timeout, 60)) * 1000)
        _ = poll(&fds, 2, ms)
    }

    private func sleep(upTo seconds: Double) {
        var fds = [pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0)]
        _ = poll(&fds, 1, Int32(max(0, min(seconds, 60)) * 1000))
    }

    /// The next instant something is due without traffic: a silence limit, a back-off's end.
    private func deadline() -> Double {
        var d = now() + 60
        if notifying != nil {
            d = min(d, lastNotification + (link == .connected ? Self.silenceLost : Self.silenceRestart))
        }
        if let w = recovery.wait(at: now()) { d = min(d, now() + w) }
        if !bluezOwner || !objectsLoaded { d = min(d, now() + (busRecovery.wait(at: now()) ?? 2)) }
        return d
    }

    private func openBus() {
        var b: OpaquePointer?
        let r = sd_bus_open_system(&b)
        guard r >= 0, let b else {
            fault("cannot open the system bus: \(String(cString: strerror(-r)))")
            return
        }
        bus = b
        let me = Unmanaged.passUnretained(self).toOpaque()
        let matches = [
            "type='signal',sender='org.bluez',path='/',interface='org.freedesktop.DBus.ObjectManager',member='InterfacesAdded'",
            "type='signal',sender='org.bluez',path='/',interface='org.freedesktop.DBus.ObjectManager',member='InterfacesRemoved'",
            "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',path_namespace='/org/bluez'",
            "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.bluez'",
        ]
        for m in matches {
            let r = sd_bus_add_match(b, nil, m, { message, userdata, _ in
                guard let message, let userdata else { return 0 }
                Unmanaged<BlueZClient>.fromOpaque(userdata).takeUnretainedValue().signal(message)
                return 0
            }, me)
            if r < 0 {
                fault("cannot watch BlueZ's signals: \(String(cString: strerror(-r)))")
                closeBus()
                return
            }
        }
        busRecovery.delivered(at: now())
        forget()
        bluezOwner = true   // until GetManagedObjects says otherwise
        send(.managedObjects, path: "/", interface: "org.freedesktop.DBus.ObjectManager", member: "GetManagedObjects")
    }

    private func closeBus() {
        if let b = bus { sd_bus_flush_close_unref(b) }
        bus = nil
        requests = [:]
        forget()
        bluezOwner = false
        setLink(everConnected ? .lost : .searching, detail: "system bus closed")
    }

    /// Everything known about BlueZ's objects goes (bluetoothd or the bus went away).
    private func forget() {
        objectsLoaded = false
        adapter = nil
        adapterPowered = false
        devices = [:]
        characteristics = [:]
        target = nil
        discovering = false
        connectPending = false
        notifyPending = false
        notifying = nil
    }

    // MARK: Deciding the next step

    /// Looks at what is known and asks BlueZ for the next step, once.
    private func advance() {
        guard bus != nil, !stopped else { return }
        let t = now()
        if let path = notifying {
            let silent = t - lastNotification
            if link == .connected && silent >= Self.silenceLost {
                setLink(.lost, detail: "no notification for \(Int(Self.silenceLost)) s")
            }
            if silent >= Self.silenceRestart {
                notifying = nil
                fault("no notification for \(Int(Self.silenceRestart)) s: disconnecting to start over")
                if let d = devicePath(of: path) {
                    send(.disconnect, path: d, interface: "org.bluez.Device1", member: "Disconnect")
                }
                recovery.scheduleReinit(at: t)
            }
            return
        }
        guard bluezOwner else {
            health("degraded", "bluetoothd is not on the system bus")
            if busRecovery.wait(at: t) == nil {
                busRecovery.scheduleReinit(at: t)
                send(.managedObjects, path: "/", interface: "org.freedesktop.DBus.ObjectManager", member: "GetManagedObjects")
            }
            return
        }
        guard objectsLoaded else { return }
        guard let adapter else {
            health("degraded", "BlueZ has no Bluetooth adapter")
            return
        }
        guard adapterPowered else {
            if recovery.wait(at: t) == nil, !requests.values.contains(where: { if case .power = $0 { true } else { false } }) {
                recovery.scheduleReinit(at: t)
                setPowered(adapter)
            }
            health("degraded", "the Bluetooth adapter is off")
            return
        }
        if target == nil || devices[target ?? ""] == nil { target = chooseDevice() }
        guard let target, let device = devices[target] else {
            health("ok", nil)
            if !discovering && !requests.values.contains(where: { if case .startDiscovery = $0 { true } else { false } }) {
                startDiscovery(adapter)
            }
            return
        }
        health("ok", nil)
        if !device.connected {
            guard !connectPending, recovery.wait(at: t) == nil else { return }
            if discovering {
                discovering = false
                send(.stopDiscovery, path: adapter, interface: "org.bluez.Adapter1", member: "StopDiscovery")
            }
            connectPending = true
            recovery.scheduleReinit(at: t)   // the next attempt waits the back-off unless this one delivers
            send(.connect(target), path: target, interface: "org.bluez.Device1", member: "Connect", timeout: 30)
            return
        }
        guard let characteristic = characteristics.first(where: { $0.value == target })?.key else { return }
        guard !notifyPending else { return }
        notifyPending = true
        send(.startNotify(characteristic), path: characteristic, interface: "org.bluez.GattCharacteristic1",
             member: "StartNotify")
    }

    /// The configured strap, else the one chosen before, else the nearest advertising the Heart Rate service.
    private func chooseDevice() -> String? {
        if let address = wanted ?? chosenAddress {
            return devices.first { $0.value.address.uppercased() == address }?.key
        }
        let straps = devices.filter { $0.value.uuids.contains(Self.serviceUUID) }
        return straps.max { ($0.value.rssi ?? -200, $1.key) < ($1.value.rssi ?? -200, $0.key) }?.key
    }

    private func devicePath(of characteristic: String) -> String? { characteristics[characteristic] }

    // MARK: Requests

    private func send(_ request: Request, path: String, interface: String, member: String, timeout: Double = 10,
                      build: (OpaquePointer) -> Void = { _ in }) {
        guard let b = bus, let m = DBusMessage.call(b, path: path, interface: interface, member: member) else { return }
        defer { sd_bus_message_unref(m) }
        build(m)
        let me = Unmanaged.passUnretained(self).toOpaque()
        let r = sd_bus_call_async(b, nil, m, { reply, userdata, _ in
            guard let reply, let userdata else { return 0 }
            Unmanaged<BlueZClient>.fromOpaque(userdata).takeUnretainedValue().reply(reply)
            return 0
        }, me, UInt64(timeout * 1e6))
        guard r >= 0 else {
            fault("\(member) could not be sent: \(String(cString: strerror(-r)))")
            return
        }
        var cookie: UInt64 = 0
        if sd_bus_message_get_cookie(m, &cookie) >= 0 { requests[cookie] = request }
    }

    private func startDiscovery(_ adapter: String) {
        send(.discoveryFilter, path: adapter, interface: "org.bluez.Adapter1", member: "SetDiscoveryFilter") { m in
            DBusMessage.open(m, "a", "{sv}")
            DBusMessage.open(m, "e", "sv")
            DBusMessage.append(m, string: "UUIDs")
            DBusMessage.open(m, "v", "as")
            DBusMessage.open(m, "a", "s")
            DBusMessage.append(m, string: Self.serviceUUID)
            DBusMessage.close(m)
            DBusMessage.close(m)
            DBusMessage.close(m)
            DBusMessage.open(m, "e", "sv")
            DBusMessage.append(m, string: "Transport")
            DBusMessage.open(m, "v", "s")
            DBusMessage.append(m, string: "le")
            DBusMessage.close(m)
            DBusMessage.close(m)
            DBusMessage.close(m)
        }
        send(.startDiscovery, path: adapter, interface: "org.bluez.Adapter1", member: "StartDiscovery")
    }

    private func setPowered(_ adapter: String) {
        send(.power, path: adapter, interface: "org.freedesktop.DBus.Properties", member: "Set") { m in
            DBusMessage.append(m, string: "org.bluez.Adapter1")
            DBusMessage.append(m, string: "Powered")
            DBusMessage.open(m, "v", "b")
            DBusMessage.append(m, bool: true)
            DBusMessage.close(m)
        }
    }

    /// A method reply (or error) for one of our requests.
    private func reply(_ m: OpaquePointer) {
        var cookie: UInt64 = 0
        guard sd_bus_message_get_reply_cookie(m, &cookie) >= 0, let request = requests.removeValue(forKey: cookie) else { return }
        let error = DBusMessage.errorName(m)
        switch request {
        case .managedObjects:
            if let error {
                bluezOwner = false
                if !error.contains("ServiceUnknown") && !error.contains("NameHasNoOwner") { fault("GetManagedObjects: \(error)") }
                return
            }
            bluezOwner = true
            forget()
            for (path, interfaces) in DBusMessage.read(m)?.dict ?? [:] { added(path, interfaces.dict) }
            objectsLoaded = true
        case .discoveryFilter:
            if let error { fault("SetDiscoveryFilter: \(error)") }
        case .startDiscovery:
            if let error {
                if !error.contains("InProgress") { fault("StartDiscovery: \(error)") }
            }
            discovering = true
        case .stopDiscovery, .disconnect, .power:
            if let error { fault("\(request): \(error)") }
        case let .connect(path):
            connectPending = false
            if let error {
                fault("Connect \(devices[path]?.address ?? path): \(error)")
            }
        case let .startNotify(path):
            notifyPending = false
            if let error {
                fault("StartNotify: \(error)")
                if let d = devicePath(of: path) { send(.disconnect, path: d, interface: "org.bluez.Device1", member: "Disconnect") }
                return
            }
            notifying = path
            lastNotification = now()
        }
    }

    // MARK: Signals

    private func signal(_ m: OpaquePointer) {
        switch DBusMessage.member(m) {
        case "InterfacesAdded":
            guard let path = DBusMessage.read(m)?.string else { return }
            added(path, DBusMessage.read(m)?.dict ?? [:])
        case "InterfacesRemoved":
            guard let path = DBusMessage.read(m)?.string else { return }
            removed(path, DBusMessage.read(m)?.strings ?? [])
        case "PropertiesChanged":
            let path = DBusMessage.path(m)
            guard let interface = DBusMessage.read(m)?.string else { return }
            changed(path, interface, DBusMessage.read(m)?.dict ?? [:])
        case "NameOwnerChanged":
            guard DBusMessage.read(m)?.string == "org.bluez" else { return }
            _ = DBusMessage.read(m)
            let owner = DBusMessage.read(m)?.string ?? ""
            forget()
            if owner.isEmpty {
                bluezOwner = false
                fault("bluetoothd left the system bus")
                setLink(everConnected ? .lost : .searching, detail: "bluetoothd stopped")
            } else {
                bluezOwner = true
                busRecovery.delivered(at: now())
                send(.managedObjects, path: "/", interface: "org.freedesktop.DBus.ObjectManager", member: "GetManagedObjects")
            }
        default:
            break
        }
    }

    private func added(_ path: String, _ interfaces: [String: DBusValue]) {
        if let a = interfaces["org.bluez.Adapter1"] {
            if adapter == nil { adapter = path }
            if adapter == path { adapterPowered = a.dict["Powered"]?.bool ?? false }
        }
        if let d = interfaces["org.bluez.Device1"]?.dict {
            var device = devices[path] ?? Device()
            device.address = d["Address"]?.string ?? device.address
            device.name = d["Name"]?.string ?? d["Alias"]?.string ?? device.name
            device.uuids = d["UUIDs"]?.strings.map { $0.lowercased() } ?? device.uuids
            device.rssi = d["RSSI"]?.int ?? device.rssi
            device.connected = d["Connected"]?.bool ?? device.connected
            device.servicesResolved = d["ServicesResolved"]?.bool ?? device.servicesResolved
            devices[path] = device
        }
        if let c = interfaces["org.bluez.GattCharacteristic1"]?.dict,
           c["UUID"]?.string?.lowercased() == Self.measurementUUID,
           let device = devices.keys.first(where: { path.hasPrefix($0 + "/") }) {
            characteristics[path] = device
        }
    }

    private func removed(_ path: String, _ interfaces: [String]) {
        if interfaces.contains("org.bluez.GattCharacteristic1") {
            characteristics[path] = nil
            if notifying == path { dropLink("the strap's characteristic went away") }
        }
        if interfaces.contains("org.bluez.Device1") {
            devices[path] = nil
            characteristics = characteristics.filter { $0.value != path }
            if target == path {
                if notifying != nil { dropLink("the strap went away") }
                target = nil
                connectPending = false
                notifyPending = false
            }
        }
        if interfaces.contains("org.bluez.Adapter1"), adapter == path {
            adapter = nil
            discovering = false
        }
    }

    private func changed(_ path: String, _ interface: String, _ values: [String: DBusValue]) {
        switch interface {
        case "org.bluez.GattCharacteristic1":
            guard path == notifying, case let .bytes(bytes)? = values["Value"] else { return }
            notification(bytes)
        case "org.bluez.Device1":
            guard var d = devices[path] else { return }
            if let v = values["Connected"]?.bool { d.connected = v }
            if let v = values["ServicesResolved"]?.bool { d.servicesResolved = v }
            if let v = values["RSSI"]?.int { d.rssi = v }
            if let v = values["UUIDs"] { d.uuids = v.strings.map { $0.lowercased() } }
            devices[path] = d
            if path == target, values["Connected"]?.bool == false {
                connectPending = false
                notifyPending = false
                if notifying != nil { dropLink("the strap disconnected") }
            }
        case "org.bluez.Adapter1":
            if path == adapter {
                if let v = values["Powered"]?.bool { adapterPowered = v }
                if let v = values["Discovering"]?.bool { discovering = v }
            }
        default:
            break
        }
    }

    private func dropLink(_ why: String) {
        notifying = nil
        fault(why)
        setLink(.lost, detail: why)
    }

    private func notification(_ bytes: [UInt8]) {
        let t = now()
        lastNotification = t
        do {
            let m = try HeartRateMeasurement.parse(bytes)
            shared.withLock { $0.notifications += 1 }
            if link != .connected {
                recovery.delivered(at: t)
                recovery.readSucceeded()
                everConnected = true
                let name = target.flatMap { devices[$0] }.map { "\($0.name ?? "strap") (\($0.address))" }
                if let target, let address = devices[target]?.address { chosenAddress = chosenAddress ?? address.uppercased() }
                shared.withLock {
                    $0.connects += 1
                    $0.device = name
                    $0.health = "ok"
                }
                setLink(.connected, detail: name)
            }
            continuation.yield(.sample(HeartRateSample(t: clock.now(), measurement: m)))
        } catch {
            shared.withLock {
                $0.notifications += 1
                $0.malformed += 1
                $0.lastError = "a notification that does not read: \(error)"
            }
        }
    }

    // MARK: Reporting

    private func setLink(_ state: HeartRateLinkState, detail: String?) {
        guard state != link else { return }
        link = state
        shared.withLock { $0.state = state }
        continuation.yield(.link(state, detail: detail))
    }

    private func health(_ h: String, _ error: String?) {
        shared.withLock {
            $0.health = link == .lost && h == "ok" ? "lost" : h
            if let error { $0.lastError = error }
        }
    }

    private func fault(_ message: String) {
        shared.withLock { $0.lastError = message }
    }
}
