import CSystemd
import FoundationEssentials
import Glibc
import MoonRunnerCore
import MoonRunnerSystem
import MoonRunnerThreads
import Synchronization

/// A heart-rate strap through BlueZ on the system D-Bus (libsystemd's sd-bus):
/// the shell around `BlueZLink`, which decides everything; this turns sd-bus
/// messages into the machine's events and its calls into messages.
///
/// Its own thread sleeps in `poll` on the bus's descriptor and on an eventfd
/// that `stop()` writes, until traffic, sd-bus's own timeout or the machine's
/// next deadline: no polling loop. Readings and status changes leave through
/// an `AsyncStream`. The four signal matches are added once per connection,
/// before anything is asked; a lost connection is closed and reopened with
/// `DeviceRecovery`'s back-off. A notification that does not parse is
/// counted, never a crash.
public final class BlueZClient: HeartRateSource, @unchecked Sendable {
    public let updates: AsyncStream<HeartRateUpdate>
    public let waitsForReceiver = false
    private let continuation: AsyncStream<HeartRateUpdate>.Continuation
    private let clock: EngineClock
    private let shared = Mutex(HeartRateSourceStatus())
    private let stopFD: Int32
    private let stopping = Atomic<Bool>(false)

    // MARK: The bus thread's state (touched only there)

    private var bus: OpaquePointer?
    private var machine: BlueZLink
    private var busRecovery: DeviceRecovery
    /// Our calls in flight: the message cookie → the machine's call.
    private var calls: [UInt64: BlueZLink.Call] = [:]
    private var notifications = 0
    private var malformed = 0
    private var lastMalformed: String?
    private var busFault: String?

    /// `address` nil: any strap (`ble:auto`).
    public init(address: String?, clock: EngineClock) {
        self.clock = clock
        stopFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        let t = MonotonicClock.now()
        machine = BlueZLink(wanted: address, at: t)
        busRecovery = DeviceRecovery(policy: BlueZLink.policy, now: t)
        (updates, continuation) = AsyncStream.makeStream(of: HeartRateUpdate.self, bufferingPolicy: .bufferingNewest(1024))
        shared.withLock {
            $0.health = .degraded
            $0.state = .searching
        }
    }

    deinit { close(stopFD) }

    public var status: HeartRateSourceStatus { shared.withLock { $0 } }

    public func start() {
        NamedThread.start(name: "moonrunner-bluez") { [self] in run() }
    }

    public func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        var one: UInt64 = 1
        _ = write(stopFD, &one, 8)
    }

    private var stopped: Bool { stopping.load(ordering: .sequentiallyConsistent) }

    /// Monotonic seconds (the back-off and silence timers; the engine clock stamps readings).
    private func now() -> Double { MonotonicClock.now() }

    // MARK: The loop

    private func run() {
        while !stopped {
            if bus == nil {
                if let wait = busRecovery.wait(at: now()) {
                    sleep(upTo: wait)
                    continue
                }
                openBus()
                publish()
                if bus == nil {
                    busRecovery.scheduleReinit(at: now())
                    continue
                }
            }
            guard let b = bus else { continue }
            var r: Int32 = 1
            while r > 0 && !stopped { r = sd_bus_process(b, nil) }
            if r < 0 {
                busFault = "the system bus connection failed: \(String(cString: strerror(-r)))"
                closeBus()
                busRecovery.scheduleReinit(at: now())
                publish()
                continue
            }
            for call in machine.next(at: now()) { send(call) }
            publish()
            waitForBus(b)
        }
        closeBus()
        continuation.finish()
    }

    /// Sleeps in poll on the bus and the stop descriptor until traffic, the bus's own timeout or the machine's deadline.
    private func waitForBus(_ b: OpaquePointer) {
        var fds = [pollfd(fd: sd_bus_get_fd(b), events: Int16(truncatingIfNeeded: sd_bus_get_events(b)), revents: 0),
                   pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0)]
        let t = now()
        var timeout = machine.deadline(at: t) - t
        var busUsec: UInt64 = 0
        if sd_bus_get_timeout(b, &busUsec) >= 0, busUsec != UInt64.max {
            // sd-bus's timeout is CLOCK_MONOTONIC in µs, the clock `now()` reads.
            timeout = min(timeout, Double(busUsec) / 1e6 - t)
        }
        // Rounded up: waking a millisecond early would only loop back here.
        let ms = Int32((max(0, min(timeout, 60)) * 1000).rounded(.up))
        _ = poll(&fds, 2, ms)
    }

    private func sleep(upTo seconds: Double) {
        var fds = [pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0)]
        _ = poll(&fds, 1, Int32((max(0, min(seconds, 60)) * 1000).rounded(.up)))
    }

    private func openBus() {
        var b: OpaquePointer?
        let r = sd_bus_open_system(&b)
        guard r >= 0, let b else {
            busFault = "cannot open the system bus: \(String(cString: strerror(-r)))"
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
            // A floating slot: it lives as long as the bus connection and goes with it.
            let r = sd_bus_add_match(b, nil, m, { message, userdata, _ in
                guard let message, let userdata else { return 0 }
                Unmanaged<BlueZClient>.fromOpaque(userdata).takeUnretainedValue().signal(message)
                return 0
            }, me)
            if r < 0 {
                busFault = "cannot watch BlueZ's signals: \(String(cString: strerror(-r)))"
                closeBus()
                return
            }
        }
        busFault = nil
        busRecovery.delivered(at: now())
        machine.busOpened(at: now())
    }

    private func closeBus() {
        if let b = bus { sd_bus_flush_close_unref(b) }
        bus = nil
        calls = [:]
        machine.busClosed(at: now())
    }

    // MARK: Calls

    private func send(_ call: BlueZLink.Call) {
        let (interface, member, timeout): (String, String, Double) = switch call.kind {
        case .getManagedObjects: ("org.freedesktop.DBus.ObjectManager", "GetManagedObjects", 10)
        case .setDiscoveryFilter: ("org.bluez.Adapter1", "SetDiscoveryFilter", 10)
        case .startDiscovery: ("org.bluez.Adapter1", "StartDiscovery", 10)
        case .stopDiscovery: ("org.bluez.Adapter1", "StopDiscovery", 10)
        case .powerOn: ("org.freedesktop.DBus.Properties", "Set", 10)
        // BlueZ ends an LE connection attempt itself; the bus timeout is only a backstop.
        case .connect: ("org.bluez.Device1", "Connect", 30)
        case .disconnect: ("org.bluez.Device1", "Disconnect", 10)
        case .startNotify: ("org.bluez.GattCharacteristic1", "StartNotify", 10)
        }
        guard let b = bus, let m = DBusMessage.call(b, path: call.path, interface: interface, member: member) else {
            machine.replied(call.token, error: "\(member) could not be built", at: now())
            return
        }
        defer { sd_bus_message_unref(m) }
        switch call.kind {
        case .setDiscoveryFilter: DBusMessage.appendDiscoveryFilter(m, uuid: BlueZLink.serviceUUID)
        case .powerOn: DBusMessage.appendSetPowered(m)
        default: break
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        let r = sd_bus_call_async(b, nil, m, { reply, userdata, _ in
            guard let reply, let userdata else { return 0 }
            Unmanaged<BlueZClient>.fromOpaque(userdata).takeUnretainedValue().reply(reply)
            return 0
        }, me, UInt64(timeout * 1e6))
        var cookie: UInt64 = 0
        guard r >= 0, sd_bus_message_get_cookie(m, &cookie) >= 0 else {
            // Never sent, so never answered: the machine must not wait for it.
            machine.replied(call.token, error: "\(member) could not be sent: \(String(cString: strerror(-r)))", at: now())
            return
        }
        calls[cookie] = call
    }

    /// A method reply (or error) for one of our calls.
    private func reply(_ m: OpaquePointer) {
        var cookie: UInt64 = 0
        guard sd_bus_message_get_reply_cookie(m, &cookie) >= 0, let call = calls.removeValue(forKey: cookie) else { return }
        let error = DBusMessage.errorName(m)
        var objects: [String: BlueZLink.Interfaces]?
        // Only GetManagedObjects answers with a body the machine reads.
        if error == nil, call.kind == .getManagedObjects {
            objects = (DBusMessage.read(m)?.dict ?? [:]).mapValues { $0.dict.mapValues(\.dict) }
        }
        machine.replied(call.token, error: error, objects: objects, at: now())
    }

    // MARK: Signals

    private func signal(_ m: OpaquePointer) {
        let t = now()
        switch DBusMessage.member(m) {
        case "InterfacesAdded":
            guard let path = DBusMessage.read(m)?.string else { return }
            machine.interfacesAdded(path, (DBusMessage.read(m)?.dict ?? [:]).mapValues(\.dict), at: t)
        case "InterfacesRemoved":
            guard let path = DBusMessage.read(m)?.string else { return }
            machine.interfacesRemoved(path, DBusMessage.read(m)?.strings ?? [], at: t)
        case "PropertiesChanged":
            let path = DBusMessage.path(m)
            guard let interface = DBusMessage.read(m)?.string else { return }
            let values = DBusMessage.read(m)?.dict ?? [:]
            if interface == "org.bluez.GattCharacteristic1", case let .bytes(bytes)? = values["Value"] {
                notification(path, bytes, at: t)
            } else {
                machine.propertiesChanged(path, interface, values, at: t)
            }
        case "NameOwnerChanged":
            guard DBusMessage.read(m)?.string == "org.bluez" else { return }
            _ = DBusMessage.read(m)
            let owner = DBusMessage.read(m)?.string ?? ""
            machine.bluezOwner(present: !owner.isEmpty, at: t)
        default:
            break
        }
    }

    private func notification(_ path: String, _ bytes: [UInt8], at t: Double) {
        let measurement: HeartRateNotification?
        do {
            measurement = try HeartRateNotification.parse(bytes)
        } catch {
            measurement = nil
            lastMalformed = "a notification that does not read: \(error)"
        }
        guard machine.notification(path, readable: measurement != nil, at: t) else { return }
        notifications += 1
        if measurement == nil { malformed += 1 }
        // Published before the sample, so that a reading never arrives from a strap still said to be searching.
        publish()
        if let measurement { continuation.yield(.sample(HeartRateSample(t: clock.now(), notification: measurement))) }
    }

    // MARK: Reporting

    /// The machine's state for `STATUS`; a change of link or health goes out on the stream.
    private func publish() {
        let health: IMUHealth = bus == nil ? .degraded : machine.health
        let problem = bus == nil ? busFault : (machine.problem ?? lastMalformed)
        let (changed, snapshot) = shared.withLock { s -> (Bool, HeartRateSourceStatus) in
            let changed = s.state != machine.link || s.health != health
            s.state = machine.link
            s.health = health
            s.device = machine.deviceName
            s.notifications = notifications
            s.malformed = malformed
            s.connects = machine.connects
            s.lastError = problem
            return (changed, s)
        }
        if changed {
            continuation.yield(.status(snapshot, detail: machine.link == .connected ? machine.deviceName : problem))
        }
    }
}
