import MoonRunnerCore
import Testing
@testable import MoonRunnerSensors

/// The BlueZ client's decisions, driven by the signals and replies bluetoothd
/// 5.66 sends, in every order they can come in.
@Suite("BlueZ link")
struct BlueZLinkTests {
    static let adapter = "/org/bluez/hci0"
    static let strap = "/org/bluez/hci0/dev_A0_9E_1A_8C_1A_2B"
    static let other = "/org/bluez/hci0/dev_11_22_33_44_55_66"
    static let service = strap + "/service000c"
    static let characteristic = strap + "/service000c/char000d"

    static func device(_ address: String, rssi: Int64, connected: Bool = false) -> BlueZLink.Interfaces {
        ["org.bluez.Device1": ["Address": .string(address), "Name": .string("Polar H10"), "RSSI": .int(rssi),
                               "UUIDs": .array([.string(BlueZLink.serviceUUID)]), "Connected": .bool(connected),
                               "ServicesResolved": .bool(connected)]]
    }

    static let adapterObject: BlueZLink.Interfaces = ["org.bluez.Adapter1": ["Powered": .bool(true),
                                                                             "Discovering": .bool(false)]]
    static let measurement: BlueZLink.Interfaces = [
        "org.bluez.GattCharacteristic1": ["UUID": .string(BlueZLink.measurementUUID), "Flags": .array([.string("notify")])],
    ]

    /// A link driven by hand: `calls` are what it asked, answered by the test.
    struct Drive {
        var link = BlueZLink(wanted: nil, at: 0)
        var t = 0.0
        var calls: [BlueZLink.Call] = []

        mutating func step(_ dt: Double = 0) -> [BlueZLink.Call] {
            t += dt
            let new = link.next(at: t)
            calls += new
            return new
        }

        /// The one outstanding call of `kind`, answered.
        mutating func answer(_ kind: BlueZLink.Call.Kind, error: String? = nil,
                             objects: [String: BlueZLink.Interfaces]? = nil) {
            guard let i = calls.lastIndex(where: { $0.kind == kind }) else {
                Issue.record("no \(kind) was asked")
                return
            }
            link.replied(calls.remove(at: i).token, error: error, objects: objects, at: t)
        }

        func asked(_ kind: BlueZLink.Call.Kind) -> Bool { calls.contains { $0.kind == kind } }

        /// From nothing to notifications flowing from the strap (a device BlueZ already knows).
        mutating func connected() {
            _ = step()
            answer(.getManagedObjects, objects: [adapter: adapterObject, strap: device("A0:9E:1A:8C:1A:2B", rssi: -50)])
            _ = step()
            answer(.connect)
            reconnected()
        }

        /// Connected again after a Connect: ServicesResolved first, then the objects, then StartNotify.
        mutating func reconnected() {
            link.propertiesChanged(strap, "org.bluez.Device1", ["Connected": .bool(true)], at: t)
            link.propertiesChanged(strap, "org.bluez.Device1", ["ServicesResolved": .bool(true)], at: t)
            let r1 = step()
            #expect(!r1.contains { $0.kind == .startNotify }, "no StartNotify before the characteristic exists")
            link.interfacesAdded(service, ["org.bluez.GattService1": ["UUID": .string(BlueZLink.serviceUUID)]], at: t)
            link.interfacesAdded(characteristic, measurement, at: t)
            let r2 = step()
            #expect(r2.map(\.kind) == [.startNotify])
            answer(.startNotify)
            let r3 = link.notification(characteristic, readable: true, at: t)
            #expect(r3)
        }

        /// Steps 1/8 s at a time (exact in binary) until a call of `kind` is asked (Disconnects answered on the way); how long it took.
        mutating func firstCall(_ kind: BlueZLink.Call.Kind, within limit: Double) -> Double? {
            let start = t
            while t - start <= limit {
                let new = step(0.125)
                // BlueZ answers a Disconnect at once.
                if kind != .disconnect, new.contains(where: { $0.kind == .disconnect }) { answer(.disconnect) }
                if new.contains(where: { $0.kind == kind }) { return t - start }
            }
            return nil
        }
    }

    @Test("BlueZ's sequence: every object first, discovery filtered to 0x180D over LE, StopDiscovery and Connect, StartNotify once the characteristic is exported after ServicesResolved")
    func sequence() {
        var d = Drive()
        let r4 = d.step()
        #expect(r4.map(\.kind) == [.getManagedObjects], "nothing is asked before every object is known")
        d.answer(.getManagedObjects, objects: [Self.adapter: Self.adapterObject])
        let r5 = d.step()
        #expect(r5.map(\.kind) == [.setDiscoveryFilter, .startDiscovery])
        #expect(d.link.health == .ok && d.link.link == .searching, "no strap yet is a normal state")
        d.answer(.setDiscoveryFilter)
        d.answer(.startDiscovery)
        d.link.propertiesChanged(Self.adapter, "org.bluez.Adapter1", ["Discovering": .bool(true)], at: d.t)
        d.link.interfacesAdded(Self.strap, Self.device("A0:9E:1A:8C:1A:2B", rssi: -50), at: d.t)
        let r6 = d.step()
        #expect(r6.map(\.kind) == [.stopDiscovery, .connect])
        d.answer(.connect)
        d.reconnected()
        #expect(d.link.link == .connected && d.link.health == .ok)
        #expect(d.link.deviceName == "Polar H10 (A0:9E:1A:8C:1A:2B)")
    }

    /// Where the StartNotify reply falls among the three signals of a drop.
    static let dropOrders: [[Int]] = {
        var out: [[Int]] = []
        for a in 0..<3 { for b in 0..<3 where b != a { out.append([a, b, 3 - a - b]) } }
        return out
    }()

    @Test("a drop within the StartNotify (its reply before, among or after the drop's signals, success or error) ends in a new Connect after the back-off and notifications again",
          arguments: dropOrders, [0, 1, 2, 3])
    func dropDuringStartNotify(order: [Int], replyAt: Int) {
        for replyError in [nil, "org.bluez.Error.Failed: Not connected"] {
            var d = Drive()
            d.connected()
            // The strap drops; reconnects once; the next StartNotify is raced by a second drop.
            d.link.propertiesChanged(Self.strap, "org.bluez.Device1", ["Connected": .bool(false)], at: d.t)
            d.link.interfacesRemoved(Self.characteristic, ["org.bluez.GattCharacteristic1"], at: d.t)
            #expect(d.link.link == .lost && d.link.health == .lost)
            guard d.firstCall(.connect, within: 1) != nil else {
                Issue.record("no Connect within 1 s of the first drop")
                return
            }
            d.answer(.connect)
            d.link.propertiesChanged(Self.strap, "org.bluez.Device1", ["Connected": .bool(true), "ServicesResolved": .bool(true)], at: d.t)
            d.link.interfacesAdded(Self.characteristic, Self.measurement, at: d.t)
            let r7 = d.step()
            #expect(r7.map(\.kind) == [.startNotify])
            let signals: [() -> Void] = [
                { [t = d.t] in d.link.interfacesRemoved(Self.characteristic, ["org.bluez.GattCharacteristic1"], at: t) },
                { [t = d.t] in d.link.propertiesChanged(Self.strap, "org.bluez.Device1", ["ServicesResolved": .bool(false)], at: t) },
                { [t = d.t] in d.link.propertiesChanged(Self.strap, "org.bluez.Device1", ["Connected": .bool(false)], at: t) },
            ]
            for (k, signal) in order.enumerated() {
                if k == replyAt { d.answer(.startNotify, error: replyError) }
                signals[signal]()
            }
            if replyAt == 3 { d.answer(.startNotify, error: replyError) }
            #expect(d.link.link == .lost, "order \(order), reply at \(replyAt)")
            // A notification from the dead subscription is not taken.
            let r8 = d.link.notification(Self.characteristic, readable: true, at: d.t)
            #expect(!r8)
            // The back-off: 0.5 s after a link that delivered, doubled for the attempt that never did.
            let wait = d.firstCall(.connect, within: 5)
            #expect(wait != nil && (wait ?? 0) <= 1.1, "order \(order), reply at \(replyAt), error \(replyError ?? "none"): waited \(wait ?? -1) s")
            d.answer(.connect)
            d.reconnected()
            #expect(d.link.link == .connected && d.link.health == .ok)
        }
    }

    @Test("the three signals of one drop, in any order and with the link deciding between them, wait one back-off (0.5 s after a link that delivered)",
          arguments: dropOrders)
    func oneDropOneBackoff(order: [Int]) {
        var d = Drive()
        d.connected()
        for signal in order {
            switch signal {
            case 0: d.link.interfacesRemoved(Self.characteristic, ["org.bluez.GattCharacteristic1"], at: d.t)
            case 1: d.link.propertiesChanged(Self.strap, "org.bluez.Device1", ["ServicesResolved": .bool(false)], at: d.t)
            default: d.link.propertiesChanged(Self.strap, "org.bluez.Device1", ["Connected": .bool(false)], at: d.t)
            }
            _ = d.step()
        }
        #expect(d.firstCall(.connect, within: 5) == 0.5, "order \(order)")
    }

    @Test("bluetoothd leaving the bus is degraded and lost; its return is asked for every object again and the strap reconnected")
    func bluetoothdRestart() {
        var d = Drive()
        d.connected()
        d.link.bluezOwner(present: false, at: d.t)
        #expect(d.link.link == .lost && d.link.health == .degraded)
        #expect(d.link.problem == "bluetoothd is not on the system bus")
        // Answers from the old bluetoothd are ignored.
        let r9 = d.link.notification(Self.characteristic, readable: true, at: d.t)
        #expect(!r9)
        d.link.bluezOwner(present: true, at: d.t + 3)
        d.t += 3
        let r10 = d.step()
        #expect(r10.map(\.kind) == [.getManagedObjects])
        d.answer(.getManagedObjects, objects: [Self.adapter: Self.adapterObject])
        let r11 = d.step()
        #expect(r11.map(\.kind) == [.setDiscoveryFilter, .startDiscovery])
        d.link.interfacesAdded(Self.strap, Self.device("A0:9E:1A:8C:1A:2B", rssi: -50), at: d.t)
        #expect(d.firstCall(.connect, within: 1) != nil)
        d.answer(.connect)
        d.reconnected()
        #expect(d.link.link == .connected && d.link.health == .ok)
    }

    @Test("no bluetoothd at start is degraded and asked again with back-off: 0.5, 1, 2, 4, 4 s")
    func noBluetoothd() {
        var d = Drive()
        _ = d.step()
        var times: [Double] = []
        for _ in 0..<6 {
            d.answer(.getManagedObjects, error: "org.freedesktop.DBus.Error.ServiceUnknown: The name org.bluez was not provided")
            #expect(d.link.health == .degraded && d.link.link == .searching)
            guard let w = d.firstCall(.getManagedObjects, within: 10) else { return }
            times.append(w)
        }
        #expect(times == [0.5, 1, 2, 4, 4, 4])
    }

    @Test("5 s without a notification is lost (health lost with it), 20 s starts the link over; notifications again are connected (health ok)")
    func silence() {
        var d = Drive()
        d.connected()
        _ = d.step(4.9)
        #expect(d.link.link == .connected)
        _ = d.step(0.1)
        #expect(d.link.link == .lost && d.link.health == .lost)
        let r12 = d.link.notification(Self.characteristic, readable: true, at: d.t + 1)
        #expect(r12)
        #expect(d.link.link == .connected && d.link.health == .ok, "health follows the link back")
        d.t += 1
        _ = d.step(19.9)
        #expect(!d.asked(.disconnect))
        let r13 = d.step(0.1)
        #expect(r13.map(\.kind) == [.disconnect])
        #expect(d.link.deadline(at: d.t) > d.t)
    }

    @Test("a subscription that never delivers, and a connection whose characteristic never appears, are started over within 10 s")
    func stuckAttempts() {
        var d = Drive()
        d.connected()
        d.link.propertiesChanged(Self.strap, "org.bluez.Device1", ["Connected": .bool(false)], at: d.t)
        _ = d.firstCall(.connect, within: 1)
        d.answer(.connect)
        d.link.propertiesChanged(Self.strap, "org.bluez.Device1", ["Connected": .bool(true), "ServicesResolved": .bool(true)], at: d.t)
        // The characteristic is still exported (a bonded strap): StartNotify at once, then silence.
        let r14 = d.step()
        #expect(r14.map(\.kind) == [.startNotify])
        d.answer(.startNotify)
        let restart = d.firstCall(.disconnect, within: 10)
        #expect(restart != nil && (restart ?? 99) <= BlueZLink.firstNotificationTimeout + 0.125)

        var e = Drive()
        e.connected()
        e.link.interfacesRemoved(Self.characteristic, ["org.bluez.GattCharacteristic1"], at: e.t)
        let gaveUp = e.firstCall(.disconnect, within: 10)
        // Counted from the link's next step (1/8 s here) after the characteristic went.
        #expect(gaveUp != nil && (gaveUp ?? 99) <= BlueZLink.resolveTimeout + 0.125)
    }

    @Test("StartNotify answered InProgress is a subscription BlueZ already holds")
    func startNotifyInProgress() {
        var d = Drive()
        _ = d.step()
        d.answer(.getManagedObjects, objects: [Self.adapter: Self.adapterObject,
                                               Self.strap: Self.device("A0:9E:1A:8C:1A:2B", rssi: -50, connected: true),
                                               Self.characteristic: Self.measurement])
        let r15 = d.step()
        #expect(r15.map(\.kind) == [.startNotify])
        d.answer(.startNotify, error: "org.bluez.Error.InProgress: Notify request already in progress")
        let r16 = d.link.notification(Self.characteristic, readable: true, at: d.t)
        #expect(r16)
        #expect(d.link.link == .connected)
    }

    @Test("a call that could not be sent counts as failed: nothing waits for its answer")
    func unsentCall() {
        var d = Drive()
        d.connected()
        d.link.propertiesChanged(Self.strap, "org.bluez.Device1", ["Connected": .bool(false)], at: d.t)
        _ = d.firstCall(.connect, within: 1)
        d.answer(.connect, error: "Connect could not be sent: Connection reset by peer")
        let again = d.firstCall(.connect, within: 5)
        #expect(again != nil, "a Connect again after the back-off")
    }

    @Test("ble:auto takes the strongest strap and keeps to it: a second strap advertising later is never connected")
    func keepsItsStrap() {
        var d = Drive()
        _ = d.step()
        d.answer(.getManagedObjects, objects: [Self.adapter: Self.adapterObject,
                                               Self.other: Self.device("11:22:33:44:55:66", rssi: -82),
                                               Self.strap: Self.device("A0:9E:1A:8C:1A:2B", rssi: -48)])
        let r17 = d.step()
        #expect(r17.map(\.path) == [Self.strap])
        d.answer(.connect)
        d.reconnected()
        #expect(d.link.chosenAddress == "A0:9E:1A:8C:1A:2B")
        // The strap goes out of range (BlueZ forgets it); the other one is nearer now.
        d.link.propertiesChanged(Self.strap, "org.bluez.Device1", ["Connected": .bool(false)], at: d.t)
        d.link.interfacesRemoved(Self.strap, ["org.bluez.Device1"], at: d.t)
        d.link.propertiesChanged(Self.other, "org.bluez.Device1", ["RSSI": .int(-30)], at: d.t)
        for _ in 0..<50 {
            let asked = d.step(0.1)
            #expect(!asked.contains { $0.kind == .connect })
        }
        #expect(d.asked(.startDiscovery), "it searches for its own strap")
    }

    @Test("the adapter switched off is degraded and switched on again")
    func adapterOff() {
        var d = Drive()
        d.connected()
        d.link.propertiesChanged(Self.adapter, "org.bluez.Adapter1", ["Powered": .bool(false)], at: d.t)
        #expect(d.link.health == .degraded && d.link.link == .lost)
        #expect(d.firstCall(.powerOn, within: 1) != nil)
    }
}
