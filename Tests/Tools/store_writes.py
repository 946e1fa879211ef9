#!/usr/bin/env python3
"""Bytes the daemon writes to disk per recorded hour (issue 11: gentle on the SD card).

Records a session as a wearer would (gpsfake replaying the bundled walk at 1 Hz
GPS, the emulated IMU at 100 Hz, the default commit interval) and reads the
daemon's `write_bytes` from /proc/PID/io (what it sent to the storage layer:
every page it dirtied) before and after a stretch of recording. The figure is
per hour of the session's own clock, so a replay at N x measures the same
commits as real time would, N times sooner.

    store_writes.py --bin .build/release [--speed 10] [--minutes 10] [--check MB]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "Tests", "Fixtures", "demo")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rig import end_gpsfake, free_port, listening, start_gpsfake, stop_daemon, wait_for  # noqa: E402


def write_bytes(pid):
    with open(f"/proc/{pid}/io") as f:
        for line in f:
            if line.startswith("write_bytes:"):
                return int(line.split()[1])
    raise RuntimeError("no write_bytes in /proc/PID/io")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", required=True)
    p.add_argument("--speed", type=float, default=10)
    p.add_argument("--minutes", type=float, default=10, help="recorded minutes to measure over")
    p.add_argument("--check", type=float, help="fail above this many MB per recorded hour")
    a = p.parse_args()
    work = tempfile.mkdtemp(prefix="mr-writes-")
    port, sock = free_port(), os.path.join(work, "mr.sock")
    truth = json.load(open(os.path.join(DEMO, "walk.truth.json")))
    cycle = 1.0 / (a.speed * truth["nmea_sentences_per_epoch"])
    gpsfake = start_gpsfake(os.path.join(DEMO, "walk.nmea"), port, work, cycle)
    daemon = None
    try:
        wait_for(lambda: listening(port), 20, "gpsd")
        cfg = os.path.join(work, "config.yaml")
        with open(cfg, "w") as f:
            f.write("imu:\n  rate_hz: 100\n")
        daemon = subprocess.Popen([os.path.join(a.bin, "moonrunnerd"), "--config", cfg, "--state-dir",
                                   os.path.join(work, "state"), "--socket", sock, "--gpsd", f"127.0.0.1:{port}",
                                   "--imu", f"replay:{os.path.join(DEMO, 'walk-imu.csv.gz')},speed={a.speed:g},loop"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: os.path.exists(sock), 15, "moonrunnerd's socket")

        def cli(*args):
            return subprocess.run([os.path.join(a.bin, "moonrunner"), "--socket", sock, *args],
                                  capture_output=True, text=True, check=True).stdout

        def status():
            return json.loads(cli("status", "--json"))
        cli("start", "--activity", "walk")
        # Past the session's first commits and the store's own start-up.
        wait_for(lambda: status()["elapsed_s"] >= 30, 30 / a.speed + 60, "30 s of the session")
        s0, b0 = status(), write_bytes(daemon.pid)
        target = s0["elapsed_s"] + a.minutes * 60
        wait_for(lambda: status()["elapsed_s"] >= target, a.minutes * 60 / a.speed * 2 + 60,
                 f"{a.minutes:g} recorded minutes")
        s1 = status()
        b1 = write_bytes(daemon.pid)
        hours = (s1["elapsed_s"] - s0["elapsed_s"]) / 3600
        mb = (b1 - b0) / 1e6 / hours
        db = os.path.join(work, "state")
        kept = sum(os.path.getsize(os.path.join(db, f)) for f in os.listdir(db)
                   if os.path.isfile(os.path.join(db, f)))
        print(f"store writes: {mb:.1f} MB per recorded hour ({(b1 - b0) / 1e6:.2f} MB over "
              f"{hours * 60:.1f} recorded min at {a.speed:g}x; GPS {s1['gps']['fixes'] - s0['gps']['fixes']} fixes, "
              f"IMU {s1['imu']['samples'] - s0['imu']['samples']} samples); the state folder holds {kept / 1e6:.2f} MB")
        if a.check is not None and mb > a.check:
            print(f"MISSED: {mb:.1f} MB per recorded hour, target <= {a.check:g}")
            return 1
        return 0
    finally:
        stop_daemon(daemon)
        end_gpsfake(gpsfake)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
