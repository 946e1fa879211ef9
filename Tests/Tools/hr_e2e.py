"""Heart rate end to end, lean enough for `make test` (about a minute).

The real binaries (`moonrunnerd`, `moonrunner`) against real peers: a private
dbus-daemon as the system bus with the BlueZ stand-in on it
(`bluez_standin.py`, its disconnects' signals in a random order), gpsfake
replaying a walk. Each check is one rule; any that fails exits 1.

BlueZ (`--hr ble:auto`):
* the strap is found and connected: `hr_state` connected, `hr.health` ok;
* a recorded session takes every heart rate the strap sent (one each way at
  the ?START/?STOP edges);
* a drop, the strap asleep for 8 s and a bluetoothd restart each reconnect
  within 10 s, with `hr_state` and `hr.health` agreeing throughout;
* the 8 s asleep is a gap in the session: points inside it have no heart
  rate (NULL, no `gpxtpx:hr`), not the last value carried on;
* `hr_lost` and `hr_connected` are the session's events;
* the FIT export's `hrv` holds every R–R interval sent, to the ms;
* `calories_kcal` in the last STATUS equals the stored session's, and both
  say the same method.

Replay (`--hr replay:FILE,speed=N` beside gpsfake): the readings recorded are
a run of the trace's rows, in order, none lost or doubled.

Bad input: `moonrunner analyze --hr` of a trace with a bad line exits 65
naming the file, the line and what was expected.

    hr_e2e.py --bin .build/debug [--data ../shared/data]

--bin is the build folder. Each rule's verdict goes to standard error as it
is decided, the count of passed and failed to standard output.
"""
import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

import rig
import strap
import system_bus
import trace_files


def daemon(bin_dir, work, name, gps_port, hr, speed, env):
    """moonrunnerd with the heart rate from `hr`, the demo IMU replayed and no auto-pause
    (the walk's own stops must not hide the gaps looked for); (process, socket)."""
    sock = os.path.join(work, f"{name}.sock")
    proc = rig.start_daemon(bin_dir, sock, os.path.join(work, name), gps_port, rig.demo_imu(speed, loop=True),
                            "--hr", hr, config="auto_pause: {enabled: false}\n",
                            log=open(os.path.join(work, f"{name}.log"), "w"), env=env, wait=None)
    rig.wait_for(lambda: os.path.exists(sock) and rig.status(bin_dir, sock), 30, f"moonrunnerd ({name})")
    return proc, sock


def consistent(s):
    """hr_state and hr.health from one moment: lost with lost, connected with ok."""
    state, health = s.get("hr_state"), (s.get("hr") or {}).get("health")
    return {"connected": health == "ok", "lost": health in ("lost", "degraded"),
            "searching": health in ("ok", "degraded")}.get(state, False)


def bluez(args, work, c):
    bus, _, env = system_bus.start(work)
    standin = gps = proc = None
    inconsistent = []
    try:
        trace = os.path.join(args.data, "hr", "fenix5_run_rr.hr.csv")
        standin = strap.StandIn(env, trace, 1, 1, open(os.path.join(work, "standin.log"), "w"), seed=args.seed,
                              loop=True)
        rig.wait_for(lambda: standin.where("bluetoothd"), 10, "the stand-in on the bus")
        # The walk from its 25th second, when it is under way, on a loop (the
        # IMU replay still starts standing: with auto-pause off it only counts steps).
        walk = os.path.join(work, "walk-moving.nmea")
        with open(os.path.join(rig.DEMO, "walk.nmea")) as src, open(walk, "w") as dst:
            dst.writelines(src.readlines()[25 * 4:])
        port = rig.free_port()
        gps = rig.start_gpsfake(walk, port, work, 0.25, wait=10)
        proc, sock = daemon(args.bin, work, "ble", port, "ble:auto", 1, env)
        rig.wait_for(lambda: (rig.status(args.bin, sock) or {}).get("hr_state") == "connected", 20, "hr_state connected")
        s = rig.status(args.bin, sock)
        c.expect(s["hr"]["health"] == "ok" and "A0:9E:1A:8C:1A:2B" in (s["hr"]["device"] or ""),
                 "the strap is found and connected (hr_state connected, health ok, the strap named)", s["hr"])
        started = time.time()
        c.expect(rig.cli(args.bin, sock, "start").returncode == 0, "?START")
        time.sleep(4)

        def watch(seconds):
            end = time.time() + seconds
            while time.time() < end:
                s = rig.status(args.bin, sock) or {}
                if s and not consistent(s):
                    inconsistent.append((s.get("hr_state"), s.get("hr", {}).get("health")))
                time.sleep(0.2)

        for fault in ("drop", "asleep 8", "restart 2"):
            t = time.time()
            standin.send(fault)
            took = strap.reconnect_after(standin, t)
            c.expect(took <= 10, f"'{fault}': notifications flow again within 10 s of the strap's return", f"{took:.2f} s")
            watch(3)
        stop_at = time.time()
        c.expect(rig.cli(args.bin, sock, "stop").returncode == 0, "?STOP")
        last = rig.status(args.bin, sock)
        c.expect(not inconsistent, "hr_state and hr.health agree in every STATUS", inconsistent[:5])
        session = last["session"]

        sent = [e for e in standin.events if e["event"] == "notify" and started <= e["at"] <= stop_at and e["bpm"] > 0]
        db = sqlite3.connect(os.path.join(work, "ble", "moonrunner.sqlite"))
        # The daemon keeps recent commits in its journal: take them in by stopping it after the exports.
        show = json.loads(rig.cli(args.bin, sock, "show", str(session), "--json").stdout)
        figures = show.get("figures", {})
        c.expect(figures.get("calories_method") == last.get("calories_method") == "acsm",
                 "with the strap away a third of the session, calories are ACSM's, live and stored",
                 f"{last.get('calories_method')} vs {figures.get('calories_method')}")
        rr_sent = [round(ms) for e in sent for ms in e["rr_ms"]]
        rr_fit, errors, _, _ = strap.fit_rr(args.bin, sock, session, work)
        gpx = os.path.join(work, "s.gpx")
        rig.cli(args.bin, sock, "export", str(session), "--format", "gpx", "-o", gpx)
        # A short session with the strap throughout: calories from heart rate, live as stored.
        # 15 s: the first reading may come up to a second after ?START, and heart rate
        # must cover 90 % of the moving time (6 s left that to chance: 5.3 of 6 s is 89 %).
        rig.cli(args.bin, sock, "start")
        time.sleep(15)
        rig.cli(args.bin, sock, "stop")
        quiet = rig.status(args.bin, sock)
        stored = json.loads(rig.cli(args.bin, sock, "show", str(quiet["session"]), "--json").stdout).get("figures", {})
        c.expect(quiet.get("calories_method") == stored.get("calories_method") == "heart_rate"
                 and abs(quiet["calories_kcal"] - stored.get("calories_kcal", -1)) < 0.05,
                 "with the strap throughout, STATUS calories (Keytel) equal the stored session's",
                 f"{quiet['calories_kcal']} {quiet.get('calories_method')} vs {stored}")
        rig.stop_daemon(proc)
        proc = None
        rows = db.execute("SELECT time, bpm FROM hr_sample WHERE session_id = ? ORDER BY time", (session,)).fetchall()
        recorded = [r for r in rows if r[1] is not None]
        c.expect(abs(len(recorded) - len(sent)) <= 2, "every heart rate sent is recorded (one each way at ?START/?STOP)",
                 f"{len(recorded)} recorded, {len(sent)} sent")
        # A run of what the strap sent, to the ms; as many as in the window give or take the ?START/?STOP edges.
        every = [round(ms) for e in standin.events if e["event"] == "notify" for ms in e["rr_ms"]]
        run = any(every[i:i + len(rr_fit)] == rr_fit for i in range(len(every) - len(rr_fit) + 1))
        edge = 2 * max((len(e["rr_ms"]) for e in sent), default=0)
        c.expect(rr_fit and run and abs(len(rr_sent) - len(rr_fit)) <= edge and not errors,
                 "the FIT hrv messages hold the R-R intervals sent, to the ms", f"{len(rr_fit)} of {len(rr_sent)}")
        # The gap: the longest silence between readings, and the points inside it.
        times = [r[0] for r in rows]
        gap = max(zip(times, times[1:]), key=lambda ab: ab[1] - ab[0])
        c.expect(gap[1] - gap[0] >= 7, "the strap asleep for 8 s is a gap between readings", f"{gap[1] - gap[0]:.1f} s")
        # The gap's end is left 1.5 s wide: a point is stamped with its fix's (receiver's) time and takes
        # the reading in hand when the fix arrives, so on a busy machine the first reading after the gap
        # can reach a fix stamped up to a second or so before it. A reading carried on would show at the
        # gap's start, which is what this looks for.
        inside = db.execute("SELECT hr FROM point WHERE session_id = ? AND time > ? AND time < ?",
                            (session, gap[0] + 5.5, gap[1] - 1.5)).fetchall()
        c.expect(inside and all(h is None for (h,) in inside),
                 "points more than 5 s into the gap have no heart rate (NULL), not the last one carried on",
                 f"{len(inside)} points: {inside[:5]}")
        with open(gpx) as f:
            text = f.read()
        c.expect(text.count("<trkpt") > text.count("<gpxtpx:hr>") > 0, "the GPX leaves gpxtpx:hr out where it is missing")
        kinds = [k for (k,) in db.execute("SELECT kind FROM event WHERE session_id = ? ORDER BY time", (session,))]
        c.expect(kinds.count("hr_lost") >= 3 and kinds.count("hr_connected") >= 3,
                 "hr_lost and hr_connected are the session's events, one per fault", kinds)
    finally:
        rig.stop_daemon(proc)
        rig.end_gpsfake(gps)
        if standin:
            standin.stop()
        system_bus.end(bus)


def replay(args, work, c):
    """The trace replayed on the receiver's clock beside gpsfake replaying the same run."""
    speed = 8
    data = os.path.join(args.data, "hr")
    port = rig.free_port()
    gps = rig.start_gpsfake(os.path.join(data, "fenix2_run.nmea"), port, work, 1 / (2 * speed), options=("-1",),
                            wait=10)
    proc = None
    try:
        trace = os.path.join(data, "fenix2_run.hr.csv")
        proc, sock = daemon(args.bin, work, "replay", port, f"replay:{trace},speed={speed}", speed, dict(os.environ))
        rig.wait_for(lambda: (rig.status(args.bin, sock) or {}).get("hr_state") == "connected", 30, "the replay playing")
        c.expect(rig.cli(args.bin, sock, "start").returncode == 0, "?START (replay)")
        time.sleep(12)
        session = rig.status(args.bin, sock)["session"]
        c.expect(rig.cli(args.bin, sock, "stop").returncode == 0, "?STOP (replay)")
        rig.stop_daemon(proc)
        proc = None
        db = sqlite3.connect(os.path.join(work, "replay", "moonrunner.sqlite"))
        got = [None if b is None else round(b) for (b,) in
               db.execute("SELECT bpm FROM hr_sample WHERE session_id = ? ORDER BY time, rowid", (session,))]
        want = [int(round(float(r["bpm"]))) if r["bpm"] else None for r in trace_files.read_csv(trace)]
        found = any(want[i:i + len(got)] == got for i in range(len(want) - len(got) + 1))
        c.expect(len(got) >= 60 and found, "the replay's readings recorded are a run of the trace's rows, in order",
                 f"{len(got)} readings")
    finally:
        rig.stop_daemon(proc)
        rig.end_gpsfake(gps)


def bad_trace(args, work, c):
    path = os.path.join(work, "bad.hr.csv")
    with open(path, "w") as f:
        f.write("t,bpm,rr_ms\n1000,72,\n1001,seventy,\n")
    r = subprocess.run([rig.program(args.bin, "moonrunner"), "analyze", "--hr", path, "--json"], capture_output=True,
                       text=True, timeout=60)
    c.expect(r.returncode == 65 and f"{path}:3:" in r.stderr and "'bpm'" in r.stderr,
             "analyze --hr of a bad line exits 65 naming the file, the line and what was expected",
             f"exit {r.returncode}: {r.stderr.strip()[:200]}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    rig.common_args(p, check=False, build="debug")
    p.add_argument("--seed", type=int, default=22)
    p.add_argument("--keep", action="store_true")
    args = p.parse_args()
    if not os.path.isdir(os.path.join(args.data, "hr")):
        print(f"hr_e2e: skipped: {args.data}/hr is absent (the heart-rate recordings)", file=sys.stderr)
        return
    work = tempfile.mkdtemp(prefix="mr-hr-e2e-")
    c = rig.Checks(stream=sys.stderr)
    began = time.time()
    print("heart rate end to end (BlueZ stand-in on a private bus, replay, bad input):", file=sys.stderr)
    try:
        bad_trace(args, work, c)
        bluez(args, work, c)
        replay(args, work, c)
    finally:
        print(f"{c.passed} passed, {len(c.failed)} failed ({time.time() - began:.0f} s)")
        if args.keep or c.failed:
            print("work folder:", work, file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
