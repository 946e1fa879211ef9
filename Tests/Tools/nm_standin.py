"""A stand-in for NetworkManager's D-Bus API (the 1.42 of Debian 12), on the
private system bus a test starts (system_bus.start), for moonrunner-upload's
tests: there is no NetworkManager and no Wi-Fi here.

It exposes what moonrunner-upload reads (NetworkManager's D-Bus reference,
networkmanager.dev/docs/api/latest/spec.html):
* `/org/freedesktop/NetworkManager`, interface `org.freedesktop.NetworkManager`:
  `State` (u: 20 disconnected, 70 connected with full connectivity) and
  `PrimaryConnection` (o: `/` when none), the `StateChanged` (u) signal and
  `PropertiesChanged` on the properties interface when they change;
* `/org/freedesktop/NetworkManager/ActiveConnection/N`, interface
  `org.freedesktop.NetworkManager.Connection.Active`: `Id` (s, the profile's
  name), `Type` (s, `802-11-wireless`), `SpecificObject` (o, the access point);
* `/org/freedesktop/NetworkManager/AccessPoint/N`, interface
  `org.freedesktop.NetworkManager.AccessPoint`: `Ssid` (ay).

Standard input (or the FIFO named by `--commands`, for a test that cannot
hold a pipe to it) steers it, one command a line: `up SSID` (joins that
Wi-Fi: a new active connection and access point, State 70), `down` (State 20,
PrimaryConnection `/`). Each change is printed as a JSON line.

    nm_standin.py [--commands FIFO]   (DBUS_SYSTEM_BUS_ADDRESS set to the private bus)
"""
import argparse
import asyncio
import json
import os
import sys

from dbus_fast import BusType
from dbus_fast.aio import MessageBus
from dbus_fast.service import PropertyAccess, ServiceInterface, dbus_property, signal

ROOT = "/org/freedesktop/NetworkManager"


class Manager(ServiceInterface):
    def __init__(self):
        super().__init__("org.freedesktop.NetworkManager")
        self.state, self.primary = 20, "/"

    @dbus_property(access=PropertyAccess.READ)
    def State(self) -> "u":
        return self.state

    @dbus_property(access=PropertyAccess.READ)
    def PrimaryConnection(self) -> "o":
        return self.primary

    @signal()
    def StateChanged(self, state) -> "u":
        return state


class Active(ServiceInterface):
    def __init__(self, name, ap):
        super().__init__("org.freedesktop.NetworkManager.Connection.Active")
        # Not `self.name`: that is ServiceInterface's own (the interface's name).
        self.profile, self.ap = name, ap

    @dbus_property(access=PropertyAccess.READ)
    def Id(self) -> "s":
        return self.profile

    @dbus_property(access=PropertyAccess.READ)
    def Type(self) -> "s":
        return "802-11-wireless"

    @dbus_property(access=PropertyAccess.READ)
    def SpecificObject(self) -> "o":
        return self.ap


class AccessPoint(ServiceInterface):
    def __init__(self, ssid):
        super().__init__("org.freedesktop.NetworkManager.AccessPoint")
        self.ssid = ssid

    @dbus_property(access=PropertyAccess.READ)
    def Ssid(self) -> "ay":
        return self.ssid.encode()


async def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--commands", help="a FIFO to read commands from instead of standard input")
    args = p.parse_args()
    bus = await MessageBus(bus_type=BusType.SYSTEM).connect()
    manager = Manager()
    bus.export(ROOT, manager)
    await bus.request_name("org.freedesktop.NetworkManager")
    print(json.dumps({"ready": True}), flush=True)
    source = sys.stdin
    if args.commands:
        # Opened for reading without waiting for a writer, and held open for writing too,
        # so that a test's writer closing it is never the end of the commands.
        source = os.fdopen(os.open(args.commands, os.O_RDONLY | os.O_NONBLOCK), "rb", buffering=0)
        keep = os.open(args.commands, os.O_WRONLY)  # noqa: F841 (held for the process's life)
    reader = asyncio.StreamReader()
    await asyncio.get_running_loop().connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), source)
    n = 0
    while True:
        line = (await reader.readline()).decode().strip()
        if not line:
            if reader.at_eof():
                break
            continue
        words = line.split(" ", 1)
        if words[0] == "up" and len(words) == 2:
            n += 1
            ap, active = f"{ROOT}/AccessPoint/{n}", f"{ROOT}/ActiveConnection/{n}"
            bus.export(ap, AccessPoint(words[1]))
            bus.export(active, Active(words[1], ap))
            manager.state, manager.primary = 70, active
        elif words[0] == "down":
            manager.state, manager.primary = 20, "/"
        else:
            continue
        manager.emit_properties_changed({"State": manager.state, "PrimaryConnection": manager.primary})
        manager.StateChanged(manager.state)
        print(json.dumps({"state": manager.state, "primary": manager.primary}), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
