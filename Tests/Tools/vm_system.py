"""vm_check.py's checks of the system as it boots: socket activation (1), the sandbox's
allowances (2) and prohibitions (3), the other units (7), and boot to READY=1 (9).

Every check talks to the guest as a user would: `moonrunner` on the command
line, `systemctl`, `journalctl`, the kernel's tools; the daemon is the
installed package's, under its unit as packaged (a drop-in, where a check
adds one, is named and removed again).
"""
import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

import arch_compare
import record_walk
import rig
from vm_guest import NMEAFeed

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "Tests/Fixtures/demo")
# Half deb_check's speed: the guest's CPUs are emulated, and a stalled guest overflows the emulated FIFO.
WALK_SPEED = 2
CONFIG = "/etc/moonrunner/moonrunner.yaml"
DROPINS = "/etc/systemd/system/moonrunnerd.service.d"
# The walk in the guest and here agree this closely (the limit).
WALK_TOLERANCE = 0.005


@dataclass
class Context:
    guest: object
    arch: str
    work: str
    bin_dir: str
    schemas: str
    seed: int
    cuts: int
    i2c_bus: str = ""
    facts: dict = field(default_factory=dict)

    def status(self):
        # Under emulation a first, socket-activated start takes several seconds: more than the CLI's 10 s on a busy host.
        r = self.guest.ssh("moonrunner --timeout 60 status --json", check=False, timeout=120)
        try:
            return json.loads(r.stdout)
        except ValueError:
            return {}

    def wait_status(self, cond, timeout, what):
        end = time.monotonic() + timeout
        last = {}
        while time.monotonic() < end:
            last = self.status()
            if last and cond(last):
                return last
            time.sleep(1)
        raise RuntimeError(f"timed out after {timeout} s waiting for {what}; last STATUS: {json.dumps(last)[:600]}")

    def configure(self, imu="none", hr="none", extra=""):
        """The daemon's config file with these sources (the other keys at their defaults), applied by a restart."""
        text = f"imu:\n  source: {imu}\nhr:\n  source: {hr}\nlog_level: info\n{extra}"
        self.guest.ssh(f"cat > {CONFIG}", input=text)
        self.guest.ssh("systemctl restart moonrunnerd.service", timeout=300)

    def unit(self, *props, unit="moonrunnerd.service"):
        out = self.guest.ssh(f"systemctl show -p {','.join(props)} {unit}", check=False).stdout
        return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)

    def reboot(self):
        """A clean power-off and a boot; seconds to ssh."""
        self.guest.poweroff()
        return self.guest.boot()


def explain(ctx, lines=40):
    """What a failure prints: the daemon's journal and the kernel's last words."""
    g = ctx.guest
    try:
        return ("--- journalctl -u moonrunnerd ---\n" + g.journal("moonrunnerd", lines)
                + "--- dmesg ---\n" + g.ssh("dmesg | tail -n 15", check=False).stdout)
    except Exception as e:  # the guest may be down
        return f"(no journal: {e})"


def prepare(ctx):
    """Files the checks use in the guest: the walk's IMU trace on the receiver's clock, the probe."""
    g = ctx.guest
    local = os.path.join(ctx.work, "walk-imu.csv")
    record_walk.anchored_imu(local)
    g.ssh("install -d -m 0755 /srv/vmcheck")
    g.put(local, "/srv/vmcheck/walk-imu.csv")
    g.put(os.path.join(DEMO, "walk-imu.csv.gz"), "/srv/vmcheck/walk-imu.csv.gz")
    g.put(os.path.join(ROOT, "Tests/Tools/vm_probe.py"), "/srv/vmcheck/vm_probe.py")
    g.ssh("chmod 0644 /srv/vmcheck/* && chmod 0755 /srv/vmcheck/vm_probe.py")
    bus = g.ssh("i2cdetect -l", check=False).stdout
    stub = [line.split()[0] for line in bus.splitlines() if "stub" in line.lower()]
    ctx.i2c_bus = "/dev/" + stub[0] if stub else ""


# --- 1. Socket activation -------------------------------------------------------------------

def socket_activation(check, ctx):
    g = ctx.guest
    boot = ctx.reboot()
    sock = g.ssh("systemctl is-active moonrunnerd.socket", check=False).stdout.strip()
    svc = g.ssh("systemctl is-active moonrunnerd.service", check=False).stdout.strip()
    check.expect(sock == "active" and svc == "inactive",
                 f"1. after boot ({boot:.0f} s to ssh) moonrunnerd.socket is {sock}, the daemon {svc}", explain(ctx))
    t0 = time.monotonic()
    st = ctx.status()
    answered = time.monotonic() - t0
    u = ctx.unit("ActiveState", "SubState", "StatusText", "InactiveExitTimestampMonotonic",
                 "ActiveEnterTimestampMonotonic", "Type")
    ready_s = (int(u.get("ActiveEnterTimestampMonotonic") or 0) - int(u.get("InactiveExitTimestampMonotonic") or 0)) / 1e6
    check.expect(st.get("class") == "STATUS" and u.get("ActiveState") == "active" and u.get("SubState") == "running"
                 and u.get("StatusText"),
                 f"1. the first `moonrunner status` started it: STATUS in {answered:.1f} s; systemd says "
                 f"{u.get('ActiveState')}/{u.get('SubState')}, StatusText \"{u.get('StatusText')}\", "
                 f"start to READY=1 {ready_s:.1f} s under emulation", explain(ctx))
    perms = g.ssh("stat -c '%U:%G %a' /run/moonrunner/moonrunner.sock /run/moonrunner", check=False).stdout.split("\n")
    check.expect(perms[:2] == ["moonrunner:moonrunner 660", "moonrunner:moonrunner 750"],
                 f"1. the socket is moonrunner:moonrunner 0660 in a moonrunner:moonrunner 0750 folder: {perms[:2]}")
    ctx.facts["start_to_ready_s"] = ready_s


# --- 2. The sandbox lets the daemon do its job ------------------------------------------------

def i2c_through_the_kernel(check, ctx):
    g = ctx.guest
    check.expect(bool(ctx.i2c_bus), f"2. i2c-stub loaded at boot from /etc/modules: {ctx.i2c_bus or 'no stub bus'}",
                 g.ssh("lsmod | grep i2c; i2cdetect -l", check=False).stdout)
    if not ctx.i2c_bus:
        return
    number = ctx.i2c_bus.rsplit("-", 1)[1]
    identity = f"i2cset -y {number} 0x68 0x75 0x68 && i2cset -y {number} 0x68 0x6b 0x40"
    g.ssh(identity)
    ctx.configure(imu=f"i2c:{ctx.i2c_bus}@0x68")
    st = ctx.wait_status(lambda s: s.get("imu", {}).get("device"), 60, "the IMU to be found")
    check.expect("MPU-6050 at 0x68" in st["imu"]["device"],
                 f"2. the daemon opens {ctx.i2c_bus} and its probe reads the MPU-6050's identity through the kernel: "
                 f"imu.device \"{st['imu']['device']}\" (then {st['imu']['health']}: "
                 f"{st['imu'].get('last_error')}: i2c-stub has registers, not a FIFO)", explain(ctx))

    # The control: the same unit without DeviceAllow= cannot open the bus.
    g.ssh(f"mkdir -p {DROPINS} && printf '[Service]\\nDeviceAllow=\\n' > {DROPINS}/vmcheck-no-i2c.conf "
          "&& systemctl daemon-reload && systemctl restart moonrunnerd.service")
    try:
        st = ctx.wait_status(lambda s: s.get("imu", {}).get("last_error"), 60, "the IMU's error")
        journal = g.journal("moonrunnerd", 30)
        error = st["imu"]["last_error"]
        denied = f"cannot open {ctx.i2c_bus}: Operation not permitted"
        check.expect(denied in error and denied in journal and st["imu"]["health"] == "lost",
                     f"2. control: without DeviceAllow= the daemon reports \"{error}\" in STATUS and the journal",
                     journal)
    finally:
        g.ssh(f"rm -f {DROPINS}/vmcheck-no-i2c.conf && systemctl daemon-reload")

    # i2c-stub loaded after the daemon started: the daemon finds the bus at its next attempt.
    g.ssh(f"systemctl stop moonrunnerd.service && modprobe -r i2c-stub && systemctl start moonrunnerd.service")
    st = ctx.wait_status(lambda s: s.get("imu", {}).get("last_error"), 60, "the missing bus's error")
    missing = st["imu"]["last_error"]
    g.ssh(f"modprobe i2c-stub chip_addr=0x68 && {identity}")
    t0 = time.monotonic()
    st = ctx.wait_status(lambda s: s.get("imu", {}).get("device"), 120, "the IMU once the bus appears")
    check.expect(True, f"2. i2c-stub loaded after the daemon: \"{missing}\" until then, the IMU found "
                       f"{time.monotonic() - t0:.0f} s after the module loaded (the driver's back-off)")


def gpsd_and_the_walk(check, ctx):
    """The walk recorded in the guest (the release's gpsd reading the GPS's serial line, the emulated MPU-6050
    replaying the walk) against this machine's build recording the same replay (record_walk.py)."""
    g = ctx.guest
    here_dir = os.path.join(ctx.work, "walk-here")
    reference = threading.Thread(target=subprocess.run, kwargs={"args": [
        sys.executable, os.path.join(ROOT, "Tests/Tools/record_walk.py"), "--bin", ctx.bin_dir, "--out", here_dir,
        "--work", os.path.join(ctx.work, "walk-here-work"), "--speed", str(WALK_SPEED)], "check": True})
    reference.start()
    ctx.configure(imu=f"replay:/srv/vmcheck/walk-imu.csv,speed={WALK_SPEED}")
    ctx.wait_status(lambda s: s.get("gps", {}).get("connects", 0) >= 1, 120, "the daemon to reach gpsd")
    nmea = os.path.join(DEMO, "walk.nmea")
    feed = NMEAFeed(nmea, os.path.join(g.work, "gps.sock"), period=1.0 / WALK_SPEED)
    feed.start()
    try:
        g.ssh("moonrunner start --activity walk")
        fixes = record_walk.fixes_in(nmea)
        st = ctx.wait_status(lambda s: s["gps"]["fixes"] >= fixes or (feed.done.is_set() and s["gps"]["fixes"] >= 0.98 * fixes),
                             len(feed.epochs) / WALK_SPEED * 4 + 300, "every fix of the walk")
        gpsd = g.ssh("systemctl is-active gpsd.service; systemctl show -p TriggeredBy gpsd.service", check=False).stdout
        g.ssh("moonrunner stop")
    finally:
        feed.stop()
    sid = json.loads(g.ssh("moonrunner sessions --json --limit 1").stdout)["sessions"][0]["id"]
    there_dir = os.path.join(ctx.work, "walk-there")
    os.makedirs(there_dir, exist_ok=True)
    g.ssh(f"moonrunner show {sid} --json > /tmp/show.json && moonrunner export {sid} --format gpx -o /tmp/s.gpx "
          f"&& moonrunner export {sid} --format fit -o /tmp/s.fit")
    for remote, local in (("/tmp/show.json", "show.json"), ("/tmp/s.gpx", "session.gpx"), ("/tmp/s.fit", "session.fit")):
        g.get(remote, os.path.join(there_dir, local))
    reference.join()
    here, there = arch_compare.export_figures(here_dir), arch_compare.export_figures(there_dir)
    check.expect("active" in gpsd and "gpsd.socket" in gpsd,
                 f"2. {'trixie' if ctx.arch == 'arm64' else 'bookworm'}'s gpsd, started by gpsd.socket, reads the GPS's serial line: {st['gps']['fixes']} fixes "
                 f"reached the daemon", gpsd)
    for key in ("distance_m", "moving_s", "steps"):
        a, b = here.get(key) or 0, there.get(key) or 0
        off = abs(a - b) / max(abs(a), 1e-9)
        check.expect(off <= WALK_TOLERANCE, f"2. the walk's {key} in the guest {b} against this machine's {a} "
                                            f"({off * 100:.2f} %, limit {WALK_TOLERANCE * 100:.1f} %)", explain(ctx))
    ctx.facts["walk"] = {"here": here, "there": there}


def bluez_without_adapter(check, ctx):
    g = ctx.guest
    # bluetoothd starts when the kernel has the Bluetooth class (ConditionPathIsDirectory=/sys/class/bluetooth).
    g.ssh("modprobe bluetooth && systemctl start bluetooth.service")
    running = g.ssh("systemctl is-active bluetooth.service", check=False).stdout.strip()
    ctx.configure(hr="ble:auto")
    ctx.wait_status(lambda s: s.get("hr", {}).get("last_error"), 60, "the strap's state")
    time.sleep(3)
    journal = g.journal("moonrunnerd", 60)
    said = [line for line in journal.splitlines() if "adapter" in line.lower() or "denied" in line.lower()]
    check.expect(running == "active" and any("no bluetooth adapter" in l.lower() for l in said)
                 and not any("denied" in l.lower() for l in said),
                 f"2. BlueZ (bluetoothd {running}) without an adapter: the journal says "
                 f"\"{said[-1].split(': ', 1)[-1] if said else '(nothing)'}\", not access denied", journal)


def journal_priorities(check, ctx):
    g = ctx.guest
    out = g.ssh("journalctl -u moonrunnerd -o json --no-pager -n 400", check=False).stdout
    seen = {}
    for line in out.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("SYSLOG_IDENTIFIER") == "moonrunnerd":
            seen[entry.get("PRIORITY")] = entry.get("MESSAGE")
    names = {"2": "crit", "3": "err", "4": "warning", "5": "notice", "6": "info", "7": "debug"}
    check.expect("6" in seen and any(p in seen for p in ("3", "4", "5")),
                 "2. the daemon's lines are in journalctl -u moonrunnerd with their priorities: "
                 + ", ".join(f"{names.get(p, p)}: \"{str(m)[:60]}\"" for p, m in sorted(seen.items())),
                 g.journal("moonrunnerd", 20))


def sandbox_allows(check, ctx):
    i2c_through_the_kernel(check, ctx)
    gpsd_and_the_walk(check, ctx)
    bluez_without_adapter(check, ctx)
    journal_priorities(check, ctx)


# --- 3. The sandbox forbids what it claims ------------------------------------------------------

EXPECTED_DENIALS = {
    # what: the errno inside the unit (the same user outside it gets success, or another errno)
    "write /srv/open/probe": "EROFS", "write /home/alice/open/probe": "EACCES", "write /etc/moonrunner/probe": "EROFS",
    "write /usr/lib/probe": "EROFS", "write /var/log/probe": "EROFS", "write /var/lib/probe": "EROFS",
    "write /boot/probe": "EROFS", "read the files under /home": "EACCES",
    "connect to this machine's own address, port 22 (not loopback)": "ETIMEDOUT",
    "create an AF_PACKET socket": "EAFNOSUPPORT", "create an AF_NETLINK socket": "EAFNOSUPPORT",
    "open /dev/hvc0 (the GPS's serial line)": "EPERM", "unshare a user namespace": "EPERM",
}
ALLOWED = ("write in /var/lib/moonrunner", "write in /run/moonrunner", "connect to gpsd at 127.0.0.1:2947",
           "connect to the system D-Bus")


def probe_results(text):
    return {r["what"]: r for r in (json.loads(line) for line in text.splitlines() if line.strip())}


def sandbox_forbids(check, ctx):
    """vm_probe.py as an ExecStartPre= of the installed unit (the unit's own sandbox, applied by systemd),
    and again as the same user outside it: a refusal counts only when the sandbox is what refused."""
    g = ctx.guest
    bus = ctx.i2c_bus or "/dev/i2c-0"
    address = g.ssh("ip -4 -o addr show scope global | awk '{split($4, a, \"/\"); print a[1]; exit}'").stdout.strip()
    flags = f"--i2c {bus} --address {address}"
    g.ssh(f"mkdir -p {DROPINS} && printf '[Service]\\nExecStartPre=/srv/vmcheck/vm_probe.py {flags}\\n' "
          f"> {DROPINS}/vmcheck-probe.conf && systemctl daemon-reload && rm -f /run/moonrunner/sandbox-probe.json")
    ctx.configure(imu=f"i2c:{bus}@0x68")
    try:
        inside = probe_results(g.ssh("cat /run/moonrunner/sandbox-probe.json", check=False).stdout)
    finally:
        g.ssh(f"rm -f {DROPINS}/vmcheck-probe.conf && systemctl daemon-reload")
    g.ssh(f"runuser -u moonrunner -- /srv/vmcheck/vm_probe.py {flags} --out /tmp/unconfined.json")
    outside = probe_results(g.ssh("cat /tmp/unconfined.json").stdout)
    for what in ALLOWED + (f"open {bus}",):
        r = inside.get(what, {})
        check.expect(r.get("ok"), f"3. allowed inside the unit: {what}", json.dumps(r))
    for what, errno in EXPECTED_DENIALS.items():
        r, u = inside.get(what, {}), outside.get(what, {})
        unconfined = "ok" if u.get("ok") else u.get("errno", "not tried")
        check.expect(r.get("ok") is False and r.get("errno") == errno and unconfined != errno,
                     f"3. refused inside the unit: {what} ({r.get('errno', 'not tried')}; the same user outside "
                     f"the unit: {unconfined})", json.dumps(r))


# --- 7. The other units --------------------------------------------------------------------------

def other_units(check, ctx):
    g = ctx.guest
    g.ssh("cat > /etc/moonrunner/announce.yaml", input="language: en\nalsa_device: \"null\"\nmax_delay_s: 5\n")
    g.ssh("systemctl enable --now moonrunner-web.service moonrunner-announce.service", timeout=300)
    import urllib.error
    import urllib.request
    code, body, t0 = None, b"", time.monotonic()
    while time.monotonic() - t0 < 120 and code is None:
        try:
            urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{g.web_port}/",
                                                          headers={"Accept": "text/html"}), timeout=10)
            code = 200
        except urllib.error.HTTPError as e:
            code, body = e.code, e.read()
        except OSError:
            time.sleep(2)
    check.expect(code == 401 and b'action="/pair"' in body,
                 f"7. moonrunner-web serves its pairing page to this machine through 127.0.0.1:{g.web_port} "
                 f"(HTTP {code})", g.journal("moonrunner-web", 20))
    state = ""
    for _ in range(60):
        state = g.ssh("systemctl is-active moonrunner-announce.service", check=False).stdout.strip()
        journal = g.journal("moonrunner-announce", 20)
        if state == "active" and "watching" in journal:
            break
        time.sleep(2)
    check.expect(state == "active" and "watching" in journal,
                 f"7. moonrunner-announce is {state} and reached the control socket (ALSA's null device)", journal)


# --- 9. Time to record -----------------------------------------------------------------------------

FIRST_CLIENT = """[Unit]
Description=A first client at boot, as a wearer's phone or announcer would be (vm-check)
After=moonrunnerd.socket

[Service]
Type=oneshot
ExecStart=/usr/bin/moonrunner status

[Install]
WantedBy=multi-user.target
"""


def time_to_record(check, ctx):
    """Kernel start to READY=1 when a client asks at boot (a oneshot `moonrunner status`, as an
    enabled announcer or web page would): the daemon is socket-activated then."""
    g = ctx.guest
    g.ssh("cat > /etc/systemd/system/vmcheck-first-client.service", input=FIRST_CLIENT)
    g.ssh("systemctl enable vmcheck-first-client.service")
    try:
        ctx.reboot()
        for _ in range(120):
            u = ctx.unit("ActiveEnterTimestampMonotonic", "InactiveExitTimestampMonotonic")
            if int(u.get("ActiveEnterTimestampMonotonic") or 0):
                break
            time.sleep(1)
        analyze = g.ssh("systemd-analyze time", check=False).stdout.strip().splitlines()
    finally:
        g.ssh("systemctl disable vmcheck-first-client.service", check=False)
    ready = int(u.get("ActiveEnterTimestampMonotonic") or 0) / 1e6
    started = int(u.get("InactiveExitTimestampMonotonic") or 0) / 1e6
    check.expect(ready > 0, f"9. kernel start to READY=1: {ready:.1f} s (socket-activated at {started:.1f} s by a "
                            f"client at boot; {analyze[0] if analyze else ''}; under emulation: reported)")
    ctx.facts["boot_to_ready_s"] = ready


CHECKS = {1: socket_activation, 2: sandbox_allows, 3: sandbox_forbids, 7: other_units, 9: time_to_record}
