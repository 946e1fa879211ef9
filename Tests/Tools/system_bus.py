"""A dbus-daemon of a test's own as the system bus: the BlueZ stand-in (the heart-rate strap),
NetworkManager's stand-in and avahi-daemon are reached there, never the machine's own bus."""
import os
import subprocess

import rig

BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={path}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
"""


def start(work):
    """A dbus-daemon of our own as the system bus: (process, its address, environment for its clients)."""
    path = os.path.join(work, "system_bus")
    with open(os.path.join(work, "bus.conf"), "w") as f:
        f.write(BUS_CONFIG.format(path=path))
    proc = subprocess.Popen(["dbus-daemon", "--config-file", os.path.join(work, "bus.conf"), "--nofork", "--nopidfile"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    address = f"unix:path={path}"
    rig.ready(proc, lambda: os.path.exists(path), 10, "the private system bus", end)
    return proc, address, dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=address)


def end(proc):
    """Ends the private dbus-daemon."""
    if proc is not None:
        proc.kill()
        proc.wait(5)
