"""A BlueZ 5.66 look-alike with a heart-rate strap, for tests (never product code).

It owns `org.bluez` on the bus in DBUS_SYSTEM_BUS_ADDRESS (a private
dbus-daemon the test started) and exposes what bluetoothd 5.66 exposes to a
client of its D-Bus API: the adapter `/org/bluez/hci0` (org.bluez.Adapter1:
SetDiscoveryFilter, StartDiscovery, StopDiscovery), a device per advertising
strap `/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF` (org.bluez.Device1: Connect,
Disconnect; Address, Name, UUIDs, RSSI, Connected, ServicesResolved), and once
connected the Heart Rate service and its measurement characteristic
(`.../service000c`, `.../service000c/char000d`: org.bluez.GattService1,
org.bluez.GattCharacteristic1 with StartNotify/StopNotify, Notifying, Value).
Like bluetoothd, the ObjectManager is at `/` and its InterfacesAdded /
InterfacesRemoved come from there; a device appears only while discovery runs
and the strap advertises; Connect answers once connected; ServicesResolved
turns true *before* the GATT objects are exported; notifications are
PropertiesChanged on Value, sent only after StartNotify. A disconnect
removes the GATT objects (the strap is not bonded) and says ServicesResolved
and Connected false, in that order or, with `--shuffle`, any order.

The strap replays a heart-rate trace (`t,bpm,rr_ms`) as 0x2A37 notifications
at `--rate` per second (`--speed` times real time), cycling through every
combination of the flags that carry a heart rate (8/16-bit value, contact
not supported or detected, energy expended, RR intervals when the trace has
some; the trace's empty cells are sent as contact not detected). Faults come
as lines on standard input: `asleep S`, `range S` (out of range: BlueZ
forgets the device), `off S` (switched off and on), `restart S` (bluetoothd
leaves the bus and comes back: NameOwnerChanged), `malformed N` (the next N
notifications cannot be read), `drop` (a disconnect, advertising at once),
`flap MS` (the next StartNotify is followed by a disconnect MS ms later:
before or after its reply),
`second` (a second strap advertises, further away), `quit`. It reports what
it does as JSON lines on standard output (`notify` with the bpm, the RR
intervals in ms and the flags; `connected`, `advertising`, ...), each with the
wall-clock `at`.
"""
import argparse
import asyncio
import itertools
import random
import json
import sys
import time

from dbus_fast import BusType, Message, Variant
from dbus_fast.aio import MessageBus
from dbus_fast.service import ServiceInterface, dbus_property, method, PropertyAccess
from dbus_fast.errors import DBusError

import rig
import trace_files

HRS = "0000180d-0000-1000-8000-00805f9b34fb"
HRM = "00002a37-0000-1000-8000-00805f9b34fb"
DIS = "0000180a-0000-1000-8000-00805f9b34fb"
BAS = "0000180f-0000-1000-8000-00805f9b34fb"
ADAPTER = "/org/bluez/hci0"


def report(kind, **fields):
    print(json.dumps({"event": kind, "at": time.time(), **fields}), flush=True)


class Bus(MessageBus):
    """A bus whose ObjectManager signals come from `/`, as bluetoothd sends them."""

    def _emit_interface_added(self, path, interface):
        values = {}
        for prop in ServiceInterface._get_properties(interface):
            values[prop.name] = Variant(prop.signature, getattr(interface, prop.prop_getter.__name__))
        self.send(Message.new_signal("/", "org.freedesktop.DBus.ObjectManager", "InterfacesAdded", "oa{sa{sv}}",
                                     [path, {interface.name: values}]))

    def _emit_interface_removed(self, path, removed):
        self.send(Message.new_signal("/", "org.freedesktop.DBus.ObjectManager", "InterfacesRemoved", "oas",
                                     [path, removed]))


class Adapter(ServiceInterface):
    def __init__(self, world):
        super().__init__("org.bluez.Adapter1")
        self.world = world
        self.discovering = False

    @method()
    def SetDiscoveryFilter(self, properties: "a{sv}"):
        report("discovery_filter", uuids=properties.get("UUIDs", Variant("as", [])).value,
               transport=properties.get("Transport", Variant("s", "auto")).value)

    @method()
    def StartDiscovery(self):
        self.discovering = True
        self.emit_properties_changed({"Discovering": True})
        report("discovery", on=True)
        self.world.scan()

    @method()
    def StopDiscovery(self):
        if not self.discovering:
            raise DBusError("org.bluez.Error.Failed", "No discovery started")
        self.discovering = False
        self.emit_properties_changed({"Discovering": False})
        report("discovery", on=False)

    @dbus_property(access=PropertyAccess.READ)
    def Address(self) -> "s":
        return "00:1A:7D:DA:71:13"

    @dbus_property(access=PropertyAccess.READ)
    def Name(self) -> "s":
        return "moonrunner-pi"

    @dbus_property(access=PropertyAccess.READ)
    def Powered(self) -> "b":
        return True

    @dbus_property(access=PropertyAccess.READ)
    def Discovering(self) -> "b":
        return self.discovering


class Device(ServiceInterface):
    def __init__(self, strap):
        super().__init__("org.bluez.Device1")
        self.strap = strap
        self.connected = False
        self.resolved = False

    @method()
    async def Connect(self):
        if self.connected:
            return
        await asyncio.sleep(self.strap.world.connect_delay)
        if not self.strap.advertising:
            await asyncio.sleep(self.strap.world.connect_delay)
            raise DBusError("org.bluez.Error.Failed", "le-connection-abort-by-local")
        self.strap.connect()

    @method()
    def Disconnect(self):
        self.strap.disconnect("requested")

    @dbus_property(access=PropertyAccess.READ)
    def Address(self) -> "s":
        return self.strap.address

    @dbus_property(access=PropertyAccess.READ)
    def AddressType(self) -> "s":
        return "random"

    @dbus_property(access=PropertyAccess.READ)
    def Name(self) -> "s":
        return self.strap.name

    @dbus_property(access=PropertyAccess.READ)
    def Alias(self) -> "s":
        return self.strap.name

    @dbus_property(access=PropertyAccess.READ)
    def Paired(self) -> "b":
        return False

    @dbus_property(access=PropertyAccess.READ)
    def Adapter(self) -> "o":
        return ADAPTER

    @dbus_property(access=PropertyAccess.READ)
    def UUIDs(self) -> "as":
        return [HRS, DIS, BAS]

    @dbus_property(access=PropertyAccess.READ)
    def RSSI(self) -> "n":
        return self.strap.rssi

    @dbus_property(access=PropertyAccess.READ)
    def Connected(self) -> "b":
        return self.connected

    @dbus_property(access=PropertyAccess.READ)
    def ServicesResolved(self) -> "b":
        return self.resolved


class Service(ServiceInterface):
    def __init__(self, device_path):
        super().__init__("org.bluez.GattService1")
        self.device_path = device_path

    @dbus_property(access=PropertyAccess.READ)
    def UUID(self) -> "s":
        return HRS

    @dbus_property(access=PropertyAccess.READ)
    def Primary(self) -> "b":
        return True

    @dbus_property(access=PropertyAccess.READ)
    def Device(self) -> "o":
        return self.device_path


class Characteristic(ServiceInterface):
    def __init__(self, strap, service_path):
        super().__init__("org.bluez.GattCharacteristic1")
        self.strap = strap
        self.service_path = service_path
        self.notifying = False
        self.value = b""

    @method()
    async def StartNotify(self):
        if self.notifying:
            raise DBusError("org.bluez.Error.InProgress", "Notify request already in progress")
        strap = self.strap
        report("start_notify", address=strap.address)
        if strap.flap is not None:
            # The link drops this many ms after the request arrived: before
            # or after the reply (which the CCC write delays by 20 ms), as a
            # strap at the edge of its range does.
            delay, strap.flap = strap.flap, None
            asyncio.get_running_loop().call_later(delay / 1000, strap.disconnect, "flap")
            await asyncio.sleep(0.02)
            if self is not strap.char:
                raise DBusError("org.bluez.Error.Failed", "Not connected")
        self.notifying = True
        self.emit_properties_changed({"Notifying": True})
        strap.notifying_started()

    @method()
    def StopNotify(self):
        self.notifying = False
        self.emit_properties_changed({"Notifying": False})

    @dbus_property(access=PropertyAccess.READ)
    def UUID(self) -> "s":
        return HRM

    @dbus_property(access=PropertyAccess.READ)
    def Service(self) -> "o":
        return self.service_path

    @dbus_property(access=PropertyAccess.READ)
    def Flags(self) -> "as":
        return ["notify"]

    @dbus_property(access=PropertyAccess.READ)
    def Notifying(self) -> "b":
        return self.notifying

    @dbus_property(access=PropertyAccess.READ)
    def Value(self) -> "ay":
        return self.value


def encode(bpm, rr_units, combo):
    """A 0x2A37 notification: `combo` picks 16-bit, contact bits and energy expended."""
    wide, contact, energy = combo
    flags = (0x01 if wide or bpm > 255 else 0)
    if bpm == 0:
        flags |= 0x04                 # contact supported, not detected: no heart rate
    elif contact == "detected":
        flags |= 0x06
    out = bytearray([flags])
    out += bpm.to_bytes(2, "little") if flags & 0x01 else bytes([bpm])
    if energy:
        flags |= 0x08
        out += (1234).to_bytes(2, "little")
    if rr_units:
        flags |= 0x10
        for r in rr_units:
            out += r.to_bytes(2, "little")
    out[0] = flags
    return bytes(out)


class Strap:
    def __init__(self, world, address, name, rssi, rows):
        self.world = world
        self.address = address
        self.name = name
        self.rssi = rssi
        self.rows = rows
        self.path = ADAPTER + "/dev_" + address.replace(":", "_")
        self.device = Device(self)
        self.service = None
        self.char = None
        self.advertising = True
        self.known = False
        self.asleep_until = 0
        self.combos = itertools.cycle(itertools.product([False, True], ["not_supported", "detected"], [False, True]))
        self.malformed = 0
        self.task = None
        self.flap = None

    def appear(self):
        if self.known or not self.advertising or self.world.bus is None:
            return
        self.known = True
        self.world.bus.export(self.path, self.device)
        report("device_added", address=self.address)

    def forget(self):
        if not self.known:
            return
        self.disconnect("forgotten")
        self.known = False
        if self.world.bus is not None:
            self.world.bus.unexport(self.path)
        report("device_removed", address=self.address)

    def connect(self):
        bus = self.world.bus
        self.device.connected = True
        self.device.emit_properties_changed({"Connected": True})
        report("connected", address=self.address)
        # BlueZ resolves services, says so, and only then exports the GATT objects.
        self.device.resolved = True
        self.device.emit_properties_changed({"ServicesResolved": True})
        service_path = self.path + "/service000c"
        self.service = Service(self.path)
        self.char = Characteristic(self, service_path)
        bus.export(service_path, self.service)
        bus.export(service_path + "/char000d", self.char)

    def disconnect(self, why):
        if self.task:
            self.task.cancel()
            self.task = None
        if not self.device.connected:
            return
        bus = self.world.bus
        had_objects = self.char is not None and bus is not None
        self.char = None
        self.service = None
        self.device.connected = False
        self.device.resolved = False

        def remove_objects():
            if had_objects:
                bus.unexport(self.path + "/service000c/char000d")
                bus.unexport(self.path + "/service000c")

        steps = [remove_objects,
                 lambda: bus is not None and self.device.emit_properties_changed({"ServicesResolved": False}),
                 lambda: bus is not None and self.device.emit_properties_changed({"Connected": False})]
        # bluetoothd's order depends on whether the ATT channel's error or the
        # controller's Disconnection Complete reaches it first: any order is
        # possible, and the client must cope with each (seeded: --seed).
        order = self.world.random.sample(range(3), 3) if self.world.shuffle else [0, 1, 2]
        for k in order:
            steps[k]()
        report("disconnected", address=self.address, why=why, order=order)

    def notifying_started(self):
        if self.task is None:
            self.task = asyncio.get_running_loop().create_task(self.notify_loop())

    async def notify_loop(self):
        world = self.world
        while self.char is not None and self.char.notifying:
            row = world.next_row()
            if row is None:
                report("trace_end")
                return
            bpm, rr = row
            per_second = world.rate
            for k in range(per_second):
                if self.char is None or not self.char.notifying:
                    return
                rr_here = rr if k == 0 else []
                units = [round(ms * 1.024) for ms in rr_here]
                if self.malformed > 0:
                    self.malformed -= 1
                    value = bytes([0x01, 0x50]) if self.malformed % 2 else bytes([0x10, 80, 0x00, 0x04, 0x33])
                    report("notify_malformed", bytes=value.hex())
                else:
                    combo = next(self.combos)
                    value = encode(bpm, units, combo)
                    report("notify", bpm=bpm, rr_ms=[u * 1000 / 1024 for u in units], flags=value[0])
                self.char.value = value
                self.char.emit_properties_changed({"Value": value})
                await asyncio.sleep(1 / per_second / world.speed)


class World:
    def __init__(self, args):
        self.rate = args.rate
        self.speed = args.speed
        self.connect_delay = args.connect_delay
        self.loop = args.loop
        self.random = random.Random(args.seed)
        self.shuffle = args.shuffle
        self.rows = read_trace(args.trace)
        self.row = 0
        self.bus = None
        self.adapter = None
        self.straps = [Strap(self, args.address, "Polar H10 8C1A2B3D", -48, self.rows)]

    def next_row(self):
        if self.row >= len(self.rows):
            if not self.loop:
                return None
            self.row = 0
        r = self.rows[self.row]
        self.row += 1
        return r

    def scan(self):
        for s in self.straps:
            s.appear()

    async def up(self):
        self.bus = await Bus(bus_type=BusType.SYSTEM).connect()
        self.adapter = Adapter(self)
        self.bus.export(ADAPTER, self.adapter)
        await self.bus.request_name("org.bluez")
        report("bluetoothd", up=True, name=self.bus.unique_name)

    async def down(self):
        for s in self.straps:
            if s.task:
                s.task.cancel()
                s.task = None
            # A new bluetoothd has new objects (the old ones belong to the old connection).
            s.device = Device(s)
            s.char = None
            s.service = None
            s.known = False
        self.bus.disconnect()
        await self.bus.wait_for_disconnect()
        self.bus = None
        report("bluetoothd", up=False)

    async def away(self, strap, seconds, forget):
        strap.advertising = False
        if strap.task:
            strap.task.cancel()
            strap.task = None
        # The link supervision timeout passes before BlueZ sees the strap gone.
        await asyncio.sleep(min(2.0, seconds) / self.speed)
        strap.disconnect("supervision timeout")
        if forget:
            strap.forget()
        await asyncio.sleep(max(0.0, seconds - 2.0) / self.speed)
        strap.advertising = True
        report("advertising", address=strap.address)
        if self.adapter is not None and self.adapter.discovering:
            strap.appear()

    async def command(self, line):
        words = line.split()
        if not words:
            return
        what, arg = words[0], float(words[1]) if len(words) > 1 else 0
        strap = self.straps[0]
        report("fault", what=what, arg=arg)
        if what in ("asleep", "off"):
            await self.away(strap, arg, forget=False)
        elif what == "range":
            await self.away(strap, arg, forget=True)
        elif what == "drop":
            strap.disconnect("dropped")
            report("advertising", address=strap.address)
        elif what == "flap":
            strap.flap = arg
        elif what == "restart":
            await self.down()
            await asyncio.sleep(arg / self.speed)
            await self.up()
            report("advertising", address=strap.address)
        elif what == "malformed":
            strap.malformed = int(arg)
        elif what == "second":
            other = Strap(self, "11:22:33:44:55:66", "Wahoo TICKR 7F01", -82, self.rows)
            self.straps.append(other)
            if self.adapter.discovering:
                other.appear()
        elif what == "quit":
            raise SystemExit(0)


def read_trace(path):
    """The strap's trace: (bpm, R-R intervals in ms) per row; an empty bpm is 0 (contact not detected)."""
    return [(int(round(float(r["bpm"]))) if r["bpm"] else 0, [float(x) for x in (r.get("rr_ms") or "").split()])
            for r in trace_files.read_csv(path)]


async def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trace", required=True)
    p.add_argument("--rate", type=int, default=1, help="notifications per second")
    p.add_argument("--speed", type=float, default=1, help="times real time")
    p.add_argument("--address", default="A0:9E:1A:8C:1A:2B")
    p.add_argument("--connect-delay", type=float, default=0.3, help="seconds a Connect takes")
    p.add_argument("--seed", type=int, default=22, help="the order of a disconnect's signals (with --shuffle)")
    p.add_argument("--shuffle", action="store_true", help="a disconnect's signals in a random order")
    p.add_argument("--loop", action="store_true", help="the trace again from its start when it ends")
    args = p.parse_args()
    world = World(args)
    await world.up()
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while True:
        line = await reader.readline()
        if not line:
            await asyncio.sleep(3600)
            continue
        loop.create_task(world.command(line.decode()))


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except (KeyboardInterrupt, SystemExit):
        pass
