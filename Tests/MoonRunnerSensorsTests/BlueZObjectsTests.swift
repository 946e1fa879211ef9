import Testing
@testable import MoonRunnerSensors

/// The table of bluetoothd's objects the heart-rate link decides from
/// (fixtures shared with the link's tests).
@Suite("BlueZ objects")
struct BlueZObjectsTests {
    typealias Fixture = BlueZLinkTests

    static func loaded() -> BlueZObjects {
        BlueZObjects(loading: [
            Fixture.adapter: Fixture.adapterObject,
            Fixture.strap: Fixture.device("A0:9E:1A:8C:1A:2B", rssi: -50),
            Fixture.other: Fixture.device("11:22:33:44:55:66", rssi: -80),
            Fixture.characteristic: Fixture.measurement,
        ])
    }

    @Test("a GetManagedObjects answer is read adapters first, so a characteristic finds the device it lies under")
    func loading() {
        let objects = Self.loaded()
        #expect(objects.loaded)
        #expect(objects.adapter == Fixture.adapter)
        #expect(objects.adapterPowered)
        #expect(objects.characteristic(of: Fixture.strap) == Fixture.characteristic)
        #expect(objects.characteristic(of: Fixture.other) == nil)
        #expect(!BlueZObjects().loaded)
    }

    @Test("the configured address is chosen, else the nearest device offering the Heart Rate service")
    func choosing() {
        let objects = Self.loaded()
        #expect(objects.choose(address: nil) == Fixture.strap)
        #expect(objects.choose(address: "11:22:33:44:55:66") == Fixture.other)
        #expect(objects.choose(address: "00:00:00:00:00:00") == nil)
    }

    @Test("a device removed takes its characteristics with it; an unknown one changes nothing")
    func removing() {
        var objects = Self.loaded()
        let removed = [objects.removeDevice("/org/bluez/hci0/dev_00"), objects.removeDevice(Fixture.strap)]
        #expect(removed == [false, true])
        #expect(objects.characteristics.isEmpty)
        let changed = objects.changeDevice(Fixture.strap, ["Connected": .bool(true)])
        #expect(!changed)
        let adapterRemoved = objects.removeAdapter(Fixture.adapter)
        #expect(adapterRemoved)
        #expect(objects.adapter == nil && !objects.adapterPowered)
    }
}
