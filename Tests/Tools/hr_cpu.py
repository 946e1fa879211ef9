"""The daemon's CPU with a heart-rate strap at 4 Hz against without one.

The release `moonrunnerd` records a session (gpsfake replaying the walk, its
IMU trace replayed) with `--hr ble:auto` and the BlueZ stand-in sending four
notifications a second (each with R–R intervals where the trace has them), and
with `--hr none`; the two alternate, `--reps` times each, so that the shared
machine's drift falls on both. Each figure is the daemon's utime + stime
(/proc/PID/stat) over a `--window` of seconds after a warm-up, as a percentage
of one core. Target (issue 22, "no visible change"): the medians differ by
less than 1 % of one core.

    hr_cpu.py --bin .build/release --data ../shared/data [--reps 3] [--window 20] [--check]
"""
import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

from hr_e2e import daemon, private_bus
from hr_live import DEMO, StandIn, cli, status
from rig import end_gpsfake, free_port, listening, start_gpsfake, stop_daemon, wait_for

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS   # utime, stime (fields 14 and 15)


def one(args, strap, k):
    work = tempfile.mkdtemp(prefix="mr-hr-cpu-")
    bus, env = private_bus(work)
    standin = gps = proc = None
    try:
        if strap:
            trace = os.path.join(args.data, "hr", "fenix5_run_rr.hr.csv")
            standin = StandIn(env, trace, 4, 1, open(os.path.join(work, "standin.log"), "w"), loop=True)
            wait_for(lambda: standin.where("bluetoothd"), 10, "the stand-in")
        port = free_port()
        gps = start_gpsfake(os.path.join(DEMO, "walk.nmea"), port, work, 0.25)
        wait_for(lambda: listening(port), 10, "gpsfake")
        proc, sock = daemon(args.bin, work, f"run{k}", port, "ble:auto" if strap else "none", 1, env)
        if strap:
            wait_for(lambda: (status(args.bin, sock) or {}).get("hr_state") == "connected", 20, "the strap")
        cli(args.bin, sock, "start")
        time.sleep(args.warmup)
        c0, t0 = cpu_seconds(proc.pid), time.monotonic()
        time.sleep(args.window)
        c1, t1 = cpu_seconds(proc.pid), time.monotonic()
        s = status(args.bin, sock)
        notes = (s.get("hr") or {}).get("notifications", 0)
        return 100 * (c1 - c0) / (t1 - t0), notes
    finally:
        stop_daemon(proc)
        end_gpsfake(gps)
        if standin:
            standin.stop()
        bus.kill()
        bus.wait(5)
        shutil.rmtree(work, ignore_errors=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bin", default=".build/release", help="the build folder")
    p.add_argument("--data", default="../shared/data")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--window", type=float, default=20)
    p.add_argument("--warmup", type=float, default=5)
    p.add_argument("--check", action="store_true")
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
    if diff >= 1.0:
        print(f"target missed: the strap costs {diff:.2f} % of a core (>= 1 %)", file=sys.stderr)
        if a.check:
            sys.exit(1)


if __name__ == "__main__":
    main()
