"""The package's Avahi service file publishes the web app over mDNS/DNS-SD.

A real avahi-daemon (Debian's 0.8) in a network and mount namespace of its
own (`unshare -n -m`: only its loopback, made multicast, so nothing goes
onto a real network), on a private dbus-daemon as its system bus, with
`avahi/moonrunner-web.service` bound over /etc/avahi/services; then
`avahi-browse -rtp _http._tcp` must resolve "MoonRunner on HOST" at
HOST.local, port 8080, TXT path=/. Needs root (namespaces, the bind mount).

    avahi_check.py

Each rule's verdict is printed as it is decided; any that fails exits 1.
"""
import os
import shutil
import subprocess
import sys
import tempfile

import rig
import system_bus

SCRIPT = """
set -e
ip link set lo up
ip link set lo multicast on
dbus-daemon --config-file {work}/bus.conf --nofork --nopidfile & BUS=$!
trap 'kill $AV $BUS 2>/dev/null' EXIT
for i in $(seq 50); do [ -S {work}/system_bus ] && break; sleep 0.1; done
export DBUS_SYSTEM_BUS_ADDRESS=unix:path={work}/system_bus
mount --bind {work}/services /etc/avahi/services
avahi-daemon -f {work}/avahi.conf --no-drop-root --no-chroot --no-rlimits > {work}/avahi.log 2>&1 & AV=$!
for i in $(seq 100); do grep -q "successfully established" {work}/avahi.log && break; sleep 0.1; done
timeout 10 avahi-browse -rtp _http._tcp
"""

CONFIG = """[server]
host-name=moonpi
use-ipv4=yes
use-ipv6=no
allow-interfaces=lo
[wide-area]
enable-wide-area=no
[publish]
publish-hinfo=no
publish-workstation=no
"""


def main():
    checks = rig.Checks(sys.stderr)
    if os.geteuid() != 0 or not shutil.which("avahi-daemon"):
        rig.skip("avahi_check.py: needs root and avahi-daemon (make deps installs it)")
        return 0
    work = tempfile.mkdtemp(prefix="avahi-")
    try:
        os.mkdir(os.path.join(work, "services"))
        shutil.copy(os.path.join(rig.ROOT, "avahi", "moonrunner-web.service"), os.path.join(work, "services"))
        with open(os.path.join(work, "bus.conf"), "w") as f:
            f.write(system_bus.BUS_CONFIG.format(path=os.path.join(work, "system_bus")))
        with open(os.path.join(work, "avahi.conf"), "w") as f:
            f.write(CONFIG)
        res = subprocess.run(["unshare", "-n", "-m", "sh", "-c", SCRIPT.format(work=work)], capture_output=True,
                             text=True, timeout=60)
        resolved = [l.split(";") for l in res.stdout.splitlines() if l.startswith("=")]
        ours = [r for r in resolved if len(r) >= 10 and r[3] == "MoonRunner\\032on\\032moonpi"]
        checks.expect(ours, "avahi-daemon publishes \"MoonRunner on HOST\" as _http._tcp", res.stdout + res.stderr)
        if ours:
            r = ours[0]
            checks.expect(r[4] == "Web Site" and r[6] == "moonpi.local" and r[8] == "8080" and r[9] == '"path=/"',
                          "it resolves to HOST.local, port 8080 (web.listen's default), TXT path=/", ";".join(r))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{checks.passed} passed, {len(checks.failed)} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
