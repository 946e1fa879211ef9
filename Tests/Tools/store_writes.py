#!/usr/bin/env python3
"""Bytes the daemon writes to disk per recorded hour (gentle on the SD card).

Records a session as a wearer would (gpsfake replaying the bundled walk at 1 Hz
GPS, the emulated IMU at 100 Hz, the default commit interval) and reads the
daemon's `write_bytes` from /proc/PID/io (what it sent to the storage layer:
every page it dirtied) before and after a stretch of recording. The figure is
per hour of the session's own clock, so a replay at N x measures the same
commits as real time would, N times sooner.

    store_writes.py --bin .build/release [--speed 10] [--minutes 10] [--check]

Target (--check exits 1 when it is missed): at most 10 MB per recorded hour
(8.7 MB measured with the journal, 42.7 MB before it).
"""
import argparse
import os
import shutil
import sys
import tempfile

import rig

TARGET_MB_PER_H = 10.0


def write_bytes(pid):
    with open(f"/proc/{pid}/io") as f:
        for line in f:
            if line.startswith("write_bytes:"):
                return int(line.split()[1])
    raise RuntimeError("no write_bytes in /proc/PID/io")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    rig.common_args(p, data=False)
    p.add_argument("--speed", type=float, default=10)
    p.add_argument("--minutes", type=float, default=10, help="recorded minutes to measure over")
    a = p.parse_args()
    work = tempfile.mkdtemp(prefix="mr-writes-")
    port, sock = rig.free_port(), os.path.join(work, "mr.sock")
    gpsfake = daemon = None
    try:
        gpsfake = rig.start_gpsfake(os.path.join(rig.DEMO, "walk.nmea"), port, work, rig.demo_cycle(a.speed), wait=20)
        daemon = rig.start_daemon(a.bin, sock, os.path.join(work, "state"), port, rig.demo_imu(a.speed, loop=True),
                                  config="imu:\n  rate_hz: 100\n")

        def cli(*args):
            return rig.cli(a.bin, sock, *args, check=True).stdout

        def elapsed():
            return rig.status(a.bin, sock)["elapsed_s"]
        cli("start", "--activity", "walk")
        # Past the session's first commits and the store's own start-up.
        rig.wait_for(lambda: elapsed() >= 30, 30 / a.speed + 60, "30 s of the session")
        s0, b0 = rig.status(a.bin, sock), write_bytes(daemon.pid)
        target = s0["elapsed_s"] + a.minutes * 60
        rig.wait_for(lambda: elapsed() >= target, a.minutes * 60 / a.speed * 2 + 60,
                     f"{a.minutes:g} recorded minutes")
        s1 = rig.status(a.bin, sock)
        b1 = write_bytes(daemon.pid)
        hours = (s1["elapsed_s"] - s0["elapsed_s"]) / 3600
        mb = (b1 - b0) / 1e6 / hours
        db = os.path.join(work, "state")
        kept = sum(os.path.getsize(os.path.join(db, f)) for f in os.listdir(db)
                   if os.path.isfile(os.path.join(db, f)))
        print(f"store writes: {mb:.1f} MB per recorded hour ({(b1 - b0) / 1e6:.2f} MB over "
              f"{hours * 60:.1f} recorded min at {a.speed:g}x; GPS {s1['gps']['fixes'] - s0['gps']['fixes']} fixes, "
              f"IMU {s1['imu']['samples'] - s0['imu']['samples']} samples); the state folder holds {kept / 1e6:.2f} MB")
        targets = rig.Targets(a.check)
        targets.expect(f"{mb:.1f} MB per recorded hour, target <= {TARGET_MB_PER_H:g}", mb <= TARGET_MB_PER_H)
        return targets.report()
    finally:
        rig.stop_daemon(daemon)
        rig.end_gpsfake(gpsfake)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
