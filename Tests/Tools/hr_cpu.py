"""The daemon's CPU with a heart-rate strap at 4 Hz against without one.

The release `moonrunnerd` records a session (gpsfake replaying the walk, its
IMU trace replayed) with `--hr ble:auto` and the BlueZ stand-in sending four
notifications a second (each with R–R intervals where the trace has them), and
with `--hr none`; the two alternate, `--reps` times each, so that the shared
machine's drift falls on both. Each figure is the daemon's utime + stime
(/proc/PID/stat) over a `--window` of seconds after a warm-up, as a percentage
of one core. Target ("no visible change"): the medians differ by
less than 1 % of one core.

    hr_cpu.py --bin .build/release [--data ../shared/data] [--reps 3] [--window 20] [--check]
"""
import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

import rig
import strap
import system_bus

TARGET_PCT = 1.0   # of one core: "no visible change"


def one(args, strap, k):
    """The daemon's CPU, % of one core, recording with (or without) a 4 Hz strap; the notifications it counted."""
    work = tempfile.mkdtemp(prefix="mr-hr-cpu-")
    bus = standin = gps = proc = None
    try:
        bus, _, env = system_bus.start(work)
        if strap:
            trace = os.path.join(args.data, "hr", "fenix5_run_rr.hr.csv")
            standin = strap.StandIn(env, trace, 4, 1, open(os.path.join(work, "standin.log"), "w"), loop=True)
            rig.wait_for(lambda: standin.where("bluetoothd"), 10, "the stand-in")
        port = rig.free_port()
        gps = rig.start_gpsfake(os.path.join(rig.DEMO, "walk.nmea"), port, work, 0.25, wait=10)
        # As hr_e2e.py runs it: no auto-pause, the demo IMU replayed.
        sock = os.path.join(work, f"run{k}.sock")
        proc = rig.start_daemon(args.bin, sock, os.path.join(work, f"run{k}"), port, rig.demo_imu(1, loop=True),
                                "--hr", "ble:auto" if strap else "none", config="auto_pause: {enabled: false}\n",
                                log=open(os.path.join(work, f"run{k}.log"), "w"), env=env, wait=None)
        rig.wait_for(lambda: os.path.exists(sock) and rig.status(args.bin, sock), 30, f"moonrunnerd (run{k})")
        if strap:
            rig.wait_for(lambda: (rig.status(args.bin, sock) or {}).get("hr_state") == "connected", 20, "the strap")
        rig.cli(args.bin, sock, "start")
        time.sleep(args.warmup)
        c0, t0 = rig.cpu_seconds(proc.pid), time.monotonic()
        time.sleep(args.window)
        c1, t1 = rig.cpu_seconds(proc.pid), time.monotonic()
        s = rig.status(args.bin, sock)
        notes = (s.get("hr") or {}).get("notifications", 0)
        return 100 * (c1 - c0) / (t1 - t0), notes
    finally:
        rig.stop_daemon(proc)
        rig.end_gpsfake(gps)
        if standin:
            standin.stop()
        system_bus.end(bus)
        shutil.rmtree(work, ignore_errors=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    rig.common_args(p)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--window", type=float, default=20)
    p.add_argument("--warmup", type=float, default=5)
    a = p.parse_args()
    with_strap, without = [], []
    notifications = []
    for k in range(a.reps):
        for strap in (True, False):
            pct, notes = one(a, strap, k)
            (with_strap if strap else without).append(round(pct, 2))
            if strap:
                notifications.append(notes)
            print(f"  {'4 Hz strap' if strap else 'no strap  '}  {pct:5.2f} % of a core", file=sys.stderr)
    diff = statistics.median(with_strap) - statistics.median(without)
    figures = {"window_s": a.window, "with_strap_pct": with_strap, "without_pct": without,
               "median_with": statistics.median(with_strap), "median_without": statistics.median(without),
               "difference_pct_of_a_core": round(diff, 2), "notifications_at_end": notifications}
    print(json.dumps(figures))
    targets = rig.Targets(a.check, stream=sys.stderr)
    targets.expect(f"the strap costs {diff:.2f} % of a core (>= {TARGET_PCT:g} %)", diff < TARGET_PCT)
    return targets.report()


if __name__ == "__main__":
    sys.exit(main())
