"""A systemd-logind look-alike for tests (never product code): the one call MoonRunner makes.

It owns `org.freedesktop.login1` on the bus in DBUS_SYSTEM_BUS_ADDRESS (a
private dbus-daemon the test started) and exports `/org/freedesktop/login1`
with `org.freedesktop.login1.Manager.PowerOff(b interactive)` as
org.freedesktop.login1(5) documents it: no return value; a caller polkit
does not allow gets `org.freedesktop.DBus.Error.AccessDenied` (`--refuse`
answers every call so, as logind does without the package's polkit rule).
Nothing is powered off: each call is reported as a JSON line on standard
output (`{"call": "PowerOff", "interactive": false, "at": …}`, the wall-clock
`at`), after `{"ready": true}` once the name is owned.
"""
import argparse
import asyncio
import json
import sys
import time

from dbus_fast import BusType
from dbus_fast.aio import MessageBus
from dbus_fast.errors import DBusError
from dbus_fast.service import ServiceInterface, method


def report(**fields):
    print(json.dumps(dict(fields, at=time.time())), flush=True)


class Manager(ServiceInterface):
    def __init__(self, refuse):
        super().__init__("org.freedesktop.login1.Manager")
        self.refuse = refuse

    @method()
    def PowerOff(self, interactive: "b"):  # noqa: F821 (a D-Bus signature)
        report(call="PowerOff", interactive=interactive, refused=self.refuse)
        if self.refuse:
            raise DBusError("org.freedesktop.DBus.Error.AccessDenied", "Interactive authentication required.")


async def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--refuse", action="store_true", help="answer AccessDenied, as logind does without the polkit rule")
    a = p.parse_args()
    bus = await MessageBus(bus_type=BusType.SYSTEM).connect()
    bus.export("/org/freedesktop/login1", Manager(a.refuse))
    await bus.request_name("org.freedesktop.login1")
    report(ready=True)
    await bus.wait_for_disconnect()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
