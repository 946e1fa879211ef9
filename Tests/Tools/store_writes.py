#!/usr/bin/env python3
"""Bytes the daemon writes to disk per recorded hour (gentle on the SD card).

Records a session as a wearer would (gpsfake replaying the bundled walk at 1 Hz
GPS, the emulated IMU at 100 Hz, the default commit interval) and reads the
daemon's `write_bytes` from /proc/PID/io (what it sent to the storage layer:
a page for each buffered page it dirtied, the size of each direct write)
from 30 s into the session to the end of the window and then through its
stop (the rest of the rows taken in). The
figure is per hour of the session's own clock: commits follow that clock (one
every 2 recorded seconds at any speed), and the journal's consolidation,
which follows the wall clock, is given `store.consolidate_interval_s` 1800 / N
at N x so that it comes as often per recorded hour as at 1x (the tool prints
how many fell in the window and the bytes of the half seconds they fell in).
What follows the wall clock alone is N times rarer at N x: on a file system
without a journal (ext4 `^has_journal`), the page of the inode table that each
write's new mtime dirties again after writeback, 4 KB every 30 wall seconds,
about 0.5 MB per hour at 1x; with a journal (jbd2 writes it) it is not in
`write_bytes`. `write_bytes` means nothing on tmpfs: the tool prints the
file system it ran on (TMPDIR chooses it).

    store_writes.py --bin .build/release [--speed 10] [--minutes 60] [--check]

Target (--check exits 1 when it is missed): at most 2 MB per recorded hour,
the stop included. Measured at 10x over 60 recorded minutes on ext4 with a
journal: 1.63 MB (1.49 MB while recording; the stop 0.14 MB), the database
with a rollback journal; 1.99 MB with a WAL (each page written twice, the
WAL and its checkpoint), with the journal written by direct I/O in 512-byte
blocks, each record deflated against the one before; before, when each
commit dirtied a 4 KB page, 10.05 MB (9.42 MB while recording); 42.7 MB
before the journal.
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import rig

TARGET_MB_PER_H = 2.0


def write_bytes(pid):
    with open(f"/proc/{pid}/io") as f:
        for line in f:
            if line.startswith("write_bytes:"):
                return int(line.split()[1])
    raise RuntimeError("no write_bytes in /proc/PID/io")


def mtime(path):
    try:
        return os.stat(path).st_mtime_ns
    except FileNotFoundError:
        return None


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    rig.common_args(p, data=False)
    p.add_argument("--speed", type=float, default=10)
    p.add_argument("--minutes", type=float, default=60, help="recorded minutes to measure over")
    p.add_argument("--keep", action="store_true", help="keep the state folder (its path is printed) to look into")
    a = p.parse_args()
    work = tempfile.mkdtemp(prefix="mr-writes-")
    # write_bytes counts what reaches a block device: on tmpfs it means nothing.
    fs = subprocess.run(["findmnt", "-n", "-o", "FSTYPE,SOURCE", "-T", work], capture_output=True, text=True).stdout.strip()
    # Commits follow the session's clock (every 2 recorded seconds at any speed); the
    # journal's consolidation follows the wall clock, so it is divided by the speed to
    # come as often per recorded hour as at 1x.
    consolidate = max(10.0, 1800 / a.speed)
    port, sock = rig.free_port(), os.path.join(work, "mr.sock")
    gpsfake = daemon = None
    try:
        gpsfake = rig.start_gpsfake(os.path.join(rig.DEMO, "walk.nmea"), port, work, rig.demo_cycle(a.speed), wait=20)
        daemon = rig.start_daemon(a.bin, sock, os.path.join(work, "state"), port, rig.demo_imu(a.speed, loop=True),
                                  config=f"imu:\n  rate_hz: 100\nstore:\n  consolidate_interval_s: {consolidate:g}\n")
        database = os.path.join(work, "state", "moonrunner.sqlite")

        def cli(*args):
            return rig.cli(a.bin, sock, *args, check=True).stdout

        def elapsed():
            return rig.status(a.bin, sock)["elapsed_s"]
        cli("start", "--activity", "walk")
        # Past the session's first commits and the store's own start-up.
        rig.wait_for(lambda: elapsed() >= 30, 30 / a.speed + 60, "30 s of the session")
        s0, b0 = rig.status(a.bin, sock), write_bytes(daemon.pid)
        target = s0["elapsed_s"] + a.minutes * 60
        # Consolidations seen in the window: each one writes the database (its mtime moves).
        # The bytes written in the half seconds where it moved are the consolidations' share (an upper
        # bound: the commits of those half seconds are in it too).
        consolidations, last_db, deadline = 0, mtime(database), time.monotonic() + a.minutes * 60 / a.speed * 2 + 60
        consolidation_bytes, last_bytes = 0, b0
        while elapsed() < target:
            if time.monotonic() > deadline:
                raise RuntimeError(f"timed out waiting for {a.minutes:g} recorded minutes")
            time.sleep(0.5)
            m, now_bytes = mtime(database), write_bytes(daemon.pid)
            if m != last_db:
                consolidations, last_db = consolidations + 1, m
                consolidation_bytes += now_bytes - last_bytes
            last_bytes = now_bytes
        s1 = rig.status(a.bin, sock)
        b1 = write_bytes(daemon.pid)
        hours = (s1["elapsed_s"] - s0["elapsed_s"]) / 3600
        db = os.path.join(work, "state")
        kept = sum(os.path.getsize(os.path.join(db, f)) for f in os.listdir(db)
                   if os.path.isfile(os.path.join(db, f)))
        # Stopping the daemon (the rest of the rows taken in) and reading its counters before it
        # is reaped puts the stop's share in the figure too.
        daemon.send_signal(signal.SIGTERM)
        os.waitid(os.P_PID, daemon.pid, os.WEXITED | os.WNOWAIT)
        b2 = write_bytes(daemon.pid)
        mb = (b2 - b0) / 1e6 / hours
        print(f"store writes: {mb:.2f} MB per recorded hour ({(b2 - b0) / 1e6:.2f} MB over "
              f"{hours * 60:.1f} recorded min at {a.speed:g}x and the stop; GPS "
              f"{s1['gps']['fixes'] - s0['gps']['fixes']} fixes, IMU {s1['imu']['samples'] - s0['imu']['samples']} "
              f"samples); the state folder held {kept / 1e6:.2f} MB")
        print(f"  while recording {(b1 - b0) / 1e6 / hours:.2f} MB per recorded hour, the stop {(b2 - b1) / 1e6:.2f} MB")
        print(f"  {consolidations} consolidation(s) in the window (every {consolidate:g} wall s = "
              f"{consolidate * a.speed / 60:g} recorded min), {consolidation_bytes / 1e6:.2f} MB of it "
              f"({consolidation_bytes / 1e6 / hours:.2f} MB per recorded hour); "
              f"state folder on {fs or 'an unknown filesystem'}")
        targets = rig.Targets(a.check)
        targets.expect(f"{mb:.1f} MB per recorded hour, target <= {TARGET_MB_PER_H:g}", mb <= TARGET_MB_PER_H)
        return targets.report()
    finally:
        rig.stop_daemon(daemon)
        rig.end_gpsfake(gpsfake)
        if a.keep:
            print(f"  kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
