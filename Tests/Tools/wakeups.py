#!/usr/bin/env python3
"""How often moonrunnerd wakes the CPU, what it spends and what it writes, recording and idle.

A Pi Zero 2 W on a 2000 mAh cell lasts as long as its CPU may sleep. This runs
the daemon as a wearer's Pi runs it, at 1x (real time), on the trail run of the
shared data: gpsfake replaying `gps/sim/c_trail.nmea` (one epoch a second), the
emulated MPU-6050 replaying an IMU trace composed along the run's own moving
and stationary intervals (100 Hz, on the receiver's clock), the emulated
BMP280 replaying `baro/c_trail.baro.csv.gz`, and moonrunner-web with one
phone's live page open (its /live stream read as an EventSource reads it).

After a warm-up it counts, over --window seconds, the context switches of
every thread of the daemon (`voluntary_ctxt_switches` +
`nonvoluntary_ctxt_switches` in /proc/PID/task/*/status: each is a time the
thread went to sleep or was put aside, so a thread that wakes N times a second
counts about N), its CPU time (utime + stime) and its `write_bytes`
(/proc/PID/io: the database, its WAL and the journal), first while a session
records, then, after the session is stopped and a settling pause, while idle.

    wakeups.py --bin .build/release [--data ../shared/data] [--window 600] [--warmup 60] [--check]

Targets (--check exits 1 when one is missed): at most 10 wakeups a second
recording, at most 2 idle. CPU seconds and bytes written per recorded hour
are printed beside them (store_writes.py holds the bytes' target over a whole
recorded hour, its consolidations included).
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time

import rig
import trace_files
import web_stack

TARGETS = {"recording": 10.0, "idle": 2.0}
SCENARIO = "c_trail"


def threads(pid):
    """{tid: (name, context switches so far, of them involuntary)} of every thread of `pid`."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
            v = rig.proc_kb(pid, f"task/{tid}/status")
        except OSError:
            continue  # the thread ended meanwhile
        forced = v.get("nonvoluntary_ctxt_switches", 0)
        out[int(tid)] = (name, v.get("voluntary_ctxt_switches", 0) + forced, forced)
    return out


def write_bytes(pid):
    with open(f"/proc/{pid}/io") as f:
        for line in f:
            if line.startswith("write_bytes:"):
                return int(line.split()[1])
    raise RuntimeError("no write_bytes in /proc/PID/io")


def window(pid, seconds):
    """What the daemon did over `seconds`: wakeups a second per thread (name, tid), in all,
    CPU seconds and bytes written."""
    t0, c0, w0, cpu0 = time.monotonic(), threads(pid), write_bytes(pid), rig.cpu_seconds(pid)
    time.sleep(seconds)
    t1, c1, w1, cpu1 = time.monotonic(), threads(pid), write_bytes(pid), rig.cpu_seconds(pid)
    span = t1 - t0
    per, forced = {}, {}
    for tid, (name, n, f) in c1.items():
        before = c0.get(tid, (name, 0, 0))
        per[(name, tid)] = (n - before[1]) / span
        forced[(name, tid)] = (f - before[2]) / span
    for tid, (name, n, f) in c0.items():
        if tid not in c1:
            per[(name + " (ended)", tid)] = 0.0  # its last switches are lost with it
    return {"span": span, "threads": per, "forced": forced, "total": sum(per.values()),
            "forced_total": sum(forced.values()), "cpu": cpu1 - cpu0, "bytes": w1 - w0}


def table(recording, idle):
    """One line per thread: wakeups a second recording and idle."""
    names = sorted(set(recording["threads"]) | set(idle["threads"]),
                   key=lambda k: -(recording["threads"].get(k, 0) + idle["threads"].get(k, 0)))
    print(f"  {'thread':<24} {'tid':>8} {'recording':>10} {'idle':>8}  {'(preempted)':>11}   (context switches a second;"
          f" preempted: of the recording ones, involuntary)")
    for key in names:
        r, i = recording["threads"].get(key), idle["threads"].get(key)
        cells = [f"{v:10.2f}" if v is not None else f"{'-':>10}" for v in (r, i)]
        if max(r or 0, i or 0) >= 0.005:
            print(f"  {key[0]:<24} {key[1]:>8} {cells[0]} {cells[1][2:]:>8}  {recording['forced'].get(key, 0):11.2f}")
    print(f"  {'all threads':<24} {'':>8} {recording['total']:10.2f} {idle['total']:8.2f}  {recording['forced_total']:11.2f}")


def run(a):
    sim = os.path.join(a.data, "gps", "sim")
    truth_path = os.path.join(sim, f"{SCENARIO}.truth.json")
    truth = json.load(open(truth_path))
    gpsd_json = os.path.join(sim, f"{SCENARIO}.gpsd.json")
    work = tempfile.mkdtemp(prefix="mr-wakeups-")
    imu = os.path.join(work, "imu.csv")
    trace_files.compose_scenario_imu(a.data, truth_path, 1, imu, trace_files.first_timed_fix(gpsd_json) + 15)
    baro = os.path.join(a.data, "baro", f"{SCENARIO}.baro.csv.gz")
    stack = gps = None
    try:
        # The daemon and the web app first; gpsfake's first client is then the daemon (its
        # reconnect), so it sees the log from its first sentence.
        stack = web_stack.Stack(a.bin, speed=1, work=work, replay=False, imu=f"replay:{imu}",
                                daemon_args=("--baro", f"replay:{baro}"), daemon_config="imu:\n  rate_hz: 100\n")
        per_epoch = truth["nmea_sentences"] / truth["n_epochs_total"]
        gps = rig.start_gpsfake(os.path.join(sim, f"{SCENARIO}.nmea"), stack.gps_port, work, 1.0 / per_epoch,
                                log=open(os.path.join(work, "gpsfake.log"), "w"))
        rig.wait_for(lambda: (stack.status() or {}).get("gps", {}).get("fixes", 0) > 0, 120, "the first fix")
        phone = web_stack.Watchers(stack, web_stack.pair(stack), 1)
        pid = stack.daemon.pid
        stack.cli("start", "--activity", "trail_run")
        time.sleep(a.warmup)
        recording = window(pid, a.window)
        s = stack.status()
        stack.cli("stop")
        time.sleep(a.settle)
        idle = window(pid, a.window)
        streamed = phone.received[0]
        phone.close()
        return recording, idle, s, streamed
    finally:
        if stack:
            stack.close()
        rig.end_gpsfake(gps)
        shutil.rmtree(work, ignore_errors=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    rig.common_args(p)
    p.add_argument("--window", type=float, default=600, help="seconds of each window (recording, idle)")
    p.add_argument("--warmup", type=float, default=60, help="seconds of recording before the first window")
    p.add_argument("--settle", type=float, default=20, help="seconds between the stop and the idle window")
    a = p.parse_args()
    a.bin = os.path.abspath(a.bin)
    recording, idle, status, streamed = run(a)
    print(f"moonrunnerd at 1x on {SCENARIO} (IMU 100 Hz, barometer, one phone's live page), "
          f"{recording['span']:.0f} s each window:")
    table(recording, idle)
    hours = recording["span"] / 3600
    print(f"  CPU: {recording['cpu'] / hours:.1f} s per recorded hour ({100 * recording['cpu'] / recording['span']:.2f} % "
          f"of a core), idle {idle['cpu'] / idle['span'] * 3600:.1f} s per hour")
    print(f"  written: {recording['bytes'] / hours / 1e6:.2f} MB per recorded hour (no consolidation in the window), "
          f"idle {idle['bytes'] / idle['span'] * 3600 / 1e6:.2f} MB per hour")
    print(f"  (the session: GPS {status['gps']['fixes']} fixes, IMU {status['imu']['samples']} samples; "
          f"the phone received {streamed} bytes)")
    targets = rig.Targets(a.check)
    for phase, w in (("recording", recording), ("idle", idle)):
        targets.expect(f"{w['total']:.2f} wakeups a second {phase}, target <= {TARGETS[phase]:g}",
                       w["total"] <= TARGETS[phase])
    return targets.report()


if __name__ == "__main__":
    sys.exit(main())
