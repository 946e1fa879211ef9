"""The battery end to end, lean enough for `make test` (under a minute).

The real binaries (`moonrunnerd`, `moonrunner`, `moonrunner-announce` in
English and in Mandarin) against real peers: gpsfake replaying the demo walk
at 15x, a private dbus-daemon as the system bus with the logind stand-in on
it (`logind_standin.py`), and the daemon's emulated MAX17048 on a cell that
drains from 32 % through the session (a 500 mAh cell under 1.4 A, 5 % a
minute: the fastest a gauge is believed). Each check is one rule; any that
fails exits 1.

Drained (`battery.poweroff: true`):
* `STATUS.battery` carries the charge, the voltage, the source and the
  device, and the minutes left once the rate is known;
* `battery_low` at 20 % and at 10 %, once each, in order, are the session's
  events, and the announcers say them with the minutes left;
* at 5 %, held for `battery.confirm_s`, the session stops with the cause
  `battery` and is on disk before the power-off is asked for: after a kill -9
  then, the store holds the stop and the session's last point within 3 s of it;
* the announcers say the battery stopped and saved the session, then the summary;
* the power-off request reaches logind once, after the stop, not interactive.

A failing gauge (a NACK from 20 s on): `STATUS.battery.health` is `lost`
with the bus errors counted, and the session goes on recording.

    battery_e2e.py --bin .build/debug
"""
import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

import rig
import system_bus

SPEED = 15
DRAINING = "emulated:MAX17048,percent=32,load=1.4,capacity=0.5"
FAILING = "emulated:MAX17048,percent=80,load=0.5,capacity=2,fault=nack@20+100000"


class Logind:
    """logind_standin.py with its JSON lines read on a thread."""

    def __init__(self, env, log):
        self.proc = subprocess.Popen([sys.executable, os.path.join(rig.HERE, "logind_standin.py")],
                                     stdout=subprocess.PIPE, stderr=log, env=env, text=True)
        self.lines = []
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        rig.wait_for(lambda: any(x.get("ready") for x in self.copy()), 20, "the logind stand-in")

    def _read(self):
        for line in self.proc.stdout:
            try:
                with self.lock:
                    self.lines.append(json.loads(line))
            except ValueError:
                pass

    def copy(self):
        with self.lock:
            return list(self.lines)

    def calls(self):
        return [x for x in self.copy() if x.get("call") == "PowerOff"]

    def close(self):
        self.proc.kill()
        self.proc.wait(5)


def config(source, poweroff):
    return ("auto_pause: {enabled: false}\n"
            f"battery:\n  source: \"{source}\"\n  interval_s: 5\n  confirm_s: 20\n"
            f"  poweroff: {'true' if poweroff else 'false'}\n  poweroff_delay_s: 1\n")


def announcer(bin_dir, sock, out, language, log):
    os.makedirs(out, exist_ok=True)
    return subprocess.Popen([os.path.join(bin_dir, "moonrunner-announce"), "--socket", sock, "--output", out,
                             "--language", language], stdout=log, stderr=log)


def said(folder):
    """The announcements written to `folder`, in order."""
    names = sorted(n for n in os.listdir(folder) if n.endswith(".txt"))
    return [open(os.path.join(folder, n)).read().strip() for n in names]


def drained(a, work, env, checks):
    port, sock = rig.free_port(), os.path.join(work, "d.sock")
    log = open(os.path.join(work, "drained.log"), "w")
    logind = Logind(env, log)
    gps = daemon = None
    voices = []
    try:
        gps = rig.start_gpsfake(os.path.join(rig.DEMO, "walk.nmea"), port, work, rig.demo_cycle(SPEED), wait=20)
        daemon = rig.start_daemon(a.bin, sock, os.path.join(work, "d"), port, rig.demo_imu(SPEED, loop=True),
                                  config=config(DRAINING, True), log=log, env=env, wait=30)
        voices = [announcer(a.bin, sock, os.path.join(work, lang), lang, log) for lang in ("en", "cmn")]
        time.sleep(2)
        rig.cli(a.bin, sock, "start", "--activity", "walk", check=True)
        seen = []

        def stopped():
            s = rig.status(a.bin, sock)
            if s.get("battery"):
                seen.append(s["battery"])
            return s["state"] == "stopped"
        rig.wait_for(stopped, 120, "the battery's stop")
        rig.wait_for(lambda: logind.calls(), 20, "the power-off request")
        time.sleep(3)  # the announcers finish; a second request would come now
        # The power goes: what is on disk now is all there is.
        daemon.kill()
        daemon.wait(5)
        db = sqlite3.connect(os.path.join(work, "d", "moonrunner.sqlite"))
        (sid, state, end), = db.execute("SELECT id, state, end_time FROM session ORDER BY id DESC LIMIT 1")
        events = db.execute("SELECT kind, time, cause, detail FROM event WHERE session_id = ? ORDER BY time, id",
                            (sid,)).fetchall()
        (last_point,), = db.execute("SELECT max(time) FROM point WHERE session_id = ?", (sid,))
        db.close()
        b = seen[-1] if seen else {}
        checks.expect(b.get("source", "").startswith("emulated:MAX17048") and b.get("device", "").startswith("MAX17048")
                      and b.get("volts") and 3.0 < b["volts"] < 4.3 and b.get("percent") is not None,
                      "STATUS.battery has the charge, the voltage, the source and the device", b)
        checks.expect(any(x.get("minutes_left") for x in seen), "STATUS.battery tells the minutes left",
                      [x.get("minutes_left") for x in seen][-5:])
        lows = [e[3] for e in events if e[0] == "battery_low"]
        checks.expect(lows == ["20", "10"], "battery_low at 20 % and at 10 %, once each, in order", lows)
        stops = [e for e in events if e[0] == "stop"]
        checks.expect(len(stops) == 1 and stops[0][2] == "battery", "the stop's cause is battery", stops)
        checks.expect(bool(stops) and state == "stopped" and end is not None and abs(end - stops[0][1]) < 0.01,
                      "after a kill -9, the store holds the session stopped at the stop", (state, end, stops[:1]))
        checks.expect(bool(stops) and last_point is not None and 0 <= stops[0][1] - last_point <= 3.0,
                      "the session's last point is within 3 s (3 fixes) of the stop", (last_point, stops[:1]))
        calls = logind.calls()
        checks.expect(len(calls) == 1 and calls[0]["interactive"] is False,
                      "logind is asked once to power off, not interactively", calls)
        for lang, low, gone in (("en", "Battery 20 percent, about", "Battery critical: the session is stopped and saved."),
                                ("cmn", "电量百分之二十，大约还能用", "电量严重不足，本次记录已停止并保存。")):
            texts = said(os.path.join(work, lang))
            checks.expect(any(t.startswith(low) for t in texts), f"{lang}: the 20 % warning is said with the time left",
                          texts)
            checks.expect(any(t.startswith(gone) and len(t) > len(gone) for t in texts),
                          f"{lang}: the battery's stop is said, then the summary", texts)
        print("  (said in English: " + " | ".join(t for t in said(os.path.join(work, "en")) if "attery" in t) + ")")
        print("  (said in Mandarin: " + " | ".join(t for t in said(os.path.join(work, "cmn")) if "电量" in t) + ")")
    finally:
        for v in voices:
            v.kill()
            v.wait(5)
        rig.stop_daemon(daemon)
        rig.end_gpsfake(gps)
        logind.close()


def failing(a, work, env, checks):
    port, sock = rig.free_port(), os.path.join(work, "f.sock")
    log = open(os.path.join(work, "failing.log"), "w")
    gps = daemon = None
    try:
        gps = rig.start_gpsfake(os.path.join(rig.DEMO, "walk.nmea"), port, work, rig.demo_cycle(SPEED), wait=20)
        daemon = rig.start_daemon(a.bin, sock, os.path.join(work, "f"), port, rig.demo_imu(SPEED, loop=True),
                                  config=config(FAILING, True), log=log, env=env, wait=30)
        rig.cli(a.bin, sock, "start", "--activity", "walk", check=True)
        def lost():
            b = rig.status(a.bin, sock).get("battery") or {}
            return b.get("health") == "lost" and b.get("bus_errors", 0) > 0
        rig.wait_for(lost, 60, "the gauge lost")
        time.sleep(2)
        s = rig.status(a.bin, sock)
        b = s["battery"]
        checks.expect(s["state"] == "recording" and b["bus_errors"] > 0 and b.get("last_error"),
                      "a gauge that stops answering is lost, counted, and the session goes on", (s["state"], b))
        rig.cli(a.bin, sock, "stop", check=True)
    finally:
        rig.stop_daemon(daemon)
        rig.end_gpsfake(gps)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", required=True)
    a = p.parse_args()
    a.bin = os.path.abspath(a.bin)
    if shutil.which("espeak-ng") is None or shutil.which("dbus-daemon") is None:
        return rig.skip("battery_e2e: espeak-ng and dbus-daemon are needed")
    began = time.monotonic()
    work = tempfile.mkdtemp(prefix="mr-battery-")
    bus = None
    checks = rig.Checks()
    try:
        bus, _, env = system_bus.start(work)
        drained(a, work, env, checks)
        failing(a, work, env, checks)
    finally:
        system_bus.end(bus)
        shutil.rmtree(work, ignore_errors=True)
    return checks.summary(f" in {time.monotonic() - began:.0f} s")


if __name__ == "__main__":
    sys.exit(main())
