#!/usr/bin/env python3
"""The bundled walk recorded live, the way two builds can be compared on it.

`make run` replays the demo walk for people to watch; this replays it for a
comparison (deb_check.py --arch arm64: the installed arm64 daemon under
qemu-user-static against this machine's release build). Both inputs are held
to the receiver's clock, so that how fast a machine runs the replay does not
change what is recorded:

* the IMU trace is the demo's, its times moved onto the receiver's clock (the
  walk's first fix at `start_utc`), so the emulated MPU-6050 delivers each
  sample when the receiver's time reaches it;
* moonrunnerd starts first, gpsfake after it (one pass, waiting for its first
  client: the daemon), and the session starts once the daemon reaches gpsd,
  inside the walk's standing start (20 s);
* it stops when the daemon has every fix (the feed then idles), then writes
  `moonrunner show --json` and the GPX and FIT exports to --out.

    record_walk.py --bin DIR --out DIR [--speed 4] [--work DIR]

DIR of --bin holds moonrunnerd and moonrunner (a build folder, or a folder of
links to the installed ones).
"""
import argparse
import gzip
import json
import os
import shutil
import tempfile
import time

import rig

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "Tests/Fixtures/demo")


def anchored_imu(out):
    """The demo's IMU trace with its times on the receiver's (UNIX) clock."""
    t0 = json.load(open(os.path.join(DEMO, "walk.truth.json")))["start_utc"]
    with gzip.open(os.path.join(DEMO, "walk-imu.csv.gz"), "rt") as src, open(out, "w") as dst:
        dst.write(src.readline())
        for line in src:
            t, rest = line.split(",", 1)
            dst.write(f"{t0 + float(t):.3f},{rest}")
    return out


def fixes_in(nmea):
    """Epochs of the log with a position (GGA with a fix quality), as the daemon counts them."""
    with open(nmea) as f:
        return sum(1 for line in f if line.startswith("$GPGGA") and line.split(",")[6] not in ("", "0"))


def record(bin_dir, out, speed, work):
    os.makedirs(work, exist_ok=True)
    nmea = os.path.join(DEMO, "walk.nmea")
    sock, port = os.path.join(work, "mr.sock"), rig.free_port()
    imu = anchored_imu(os.path.join(work, "walk-imu.csv"))
    daemon = rig.start_daemon(bin_dir, sock, os.path.join(work, "state"), port, f"replay:{imu},speed={speed:g}",
                              "--log-level", "info", log=open(os.path.join(work, "daemon.log"), "w"), wait=60)
    gpsfake = None
    try:
        gpsfake = rig.start_gpsfake(nmea, port, work, rig.demo_cycle(speed), options=("-1",),
                                    log=open(os.path.join(work, "gpsfake.log"), "w"))
        gps = lambda: (rig.status(bin_dir, sock) or {}).get("gps", {})
        rig.wait_for(lambda: gps().get("connects", 0) >= 1, 120, "the daemon to reach gpsd")
        rig.cli(bin_dir, sock, "start", "--activity", "walk", check=True, timeout=120)
        fixes = fixes_in(nmea)
        deadline = time.monotonic() + 1100 / speed * 4 + 120
        count, since = -1, time.monotonic()
        while time.monotonic() < deadline:
            n = gps().get("fixes", count)
            if n != count:
                count, since = n, time.monotonic()
            # Every fix, or the count standing still near the end (gpsd may merge an epoch).
            if n >= fixes or (n >= 0.98 * fixes and time.monotonic() - since > 5):
                break
            time.sleep(0.2)
        rig.cli(bin_dir, sock, "stop", check=True, timeout=120)
        sid = json.loads(rig.cli(bin_dir, sock, "sessions", "--json", "--limit", "1", check=True).stdout)
        sid = str(sid["sessions"][0]["id"])
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "show.json"), "w") as f:
            f.write(rig.cli(bin_dir, sock, "show", sid, "--json", check=True).stdout)
        for fmt in ("gpx", "fit"):
            rig.cli(bin_dir, sock, "export", sid, "--format", fmt, "-o", os.path.join(out, f"session.{fmt}"),
                    check=True, timeout=120)
    finally:
        rig.stop_daemon(daemon)
        rig.end_gpsfake(gpsfake)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--speed", type=float, default=4)
    p.add_argument("--work")
    a = p.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="mr-walk-")
    try:
        record(a.bin, a.out, a.speed, work)
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
