"""The heart-rate path live, against the BlueZ stand-in: the real moonrunnerd
with `--hr ble:auto` on a private system bus (a dbus-daemon of its own, its
address in DBUS_SYSTEM_BUS_ADDRESS), `bluez_standin.py` replaying a heart-rate
trace as 0x2A37 notifications, gpsfake replaying the demo walk for the track.

Measures the heart rate's live targets and prints them as JSON (exit 1 under
--check when one is missed):
* samples recorded vs notifications sent (the session's stored readings
  against the stand-in's log), at `--rate` 1 or 4 per second: 100 %;
* reconnect after the strap reappears (asleep, out of range) and after a
  bluetoothd restart: seconds from the stand-in advertising again to its first
  notification after the new StartNotify: <= 10 s;
* malformed notifications counted, the second strap ignored;
* the RR intervals in the FIT export's `hrv` messages (Garmin's FIT SDK)
  against those sent: identical to the ms;
* with `--cycles N`: N disconnect-reconnect cycles (every fourth with a
  second drop 0-40 ms after the StartNotify, the signals of each disconnect
  in a random order); the daemon's open descriptors (/proc/PID/fd), its
  match rules on the bus (dbus-daemon's Debug.Stats) and its anonymous
  memory (RssAnon) at the start, after `--warmup` cycles and at the end: no
  growth, and every cycle reconnected within 10 s.
"""
import argparse
import json
import random
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


def fd_count(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def match_rules(bus_address, unique):
    """Match rules the daemon's connection holds on the bus (dbus-daemon's Debug.Stats)."""
    r = subprocess.run(["busctl", f"--address={bus_address}", "call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
                        "org.freedesktop.DBus.Debug.Stats", "GetConnectionStats", "s", unique, "--json=short"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None
    data = json.loads(r.stdout)["data"][0]
    return data.get("MatchRules", {}).get("data"), data.get("PeakMatchRules", {}).get("data")


def daemon_unique_name(bus_address, pid):
    r = subprocess.run(["busctl", f"--address={bus_address}", "list", "--json=short"], capture_output=True, text=True)
    for entry in json.loads(r.stdout or "[]"):
        if entry.get("pid") == pid and entry.get("name", "").startswith(":"):
            return entry["name"]
    return None


def cycles(args, daemon, standin, bus_address, figures, targets):
    """`--cycles` disconnect-reconnect cycles with no session open, so that what
    grows is the link's, not the session's (its readings, events and SQLite's
    page cache). Every fourth cycle the link also drops 0-40 ms after the
    StartNotify that follows (before or after its reply): the race that once
    left the client waiting on a dead characteristic."""
    pid = daemon.pid
    unique = daemon_unique_name(bus_address, pid)
    rng = random.Random(args.seed)
    samples = []
    worst = 0.0
    flaps = 0
    slow = []
    for i in range(args.cycles + 1):
        if i in (0, args.warmup, args.cycles):
            time.sleep(1.5)   # a notification or two: the daemon at rest
            rules, peak = match_rules(bus_address, unique)
            samples.append({"cycle": i, "fds": fd_count(pid), "anon_kb": rig.proc_kb(pid).get("RssAnon", 0),
                            "match_rules": rules, "peak_match_rules": peak})
        if i == args.cycles:
            break
        t = time.time()
        flap = None
        if i % 4 == 3:
            flap = round(rng.uniform(0, 40), 1)
            standin.send(f"flap {flap}")
            flaps += 1
        standin.send("drop")
        took = strap.reconnect_after(standin, t)
        worst = max(worst, took)
        if took > 3:
            slow.append({"cycle": i, "s": round(took, 2), "flap_ms": flap})
    figures.update({"cycles": args.cycles, "flaps": flaps, "worst_cycle_reconnect_s": round(worst, 2),
                    "slow_cycles": slow[:20], "resources": samples})
    start, warm, end = samples
    targets.expect(f"open descriptors {start['fds']} -> {warm['fds']} -> {end['fds']}",
                   end["fds"] == warm["fds"] == start["fds"])
    targets.expect(f"match rules {start['match_rules']} -> {end['match_rules']}",
                   end["match_rules"] is not None and end["match_rules"] == start["match_rules"])
    # Heap pages settle in the first cycles (allocator arenas, caches);
    # after that anything above a page-rounding margin is a leak.
    targets.expect(f"anonymous memory {warm['anon_kb']} -> {end['anon_kb']} kB over cycles {args.warmup}-{args.cycles}",
                   end["anon_kb"] - warm["anon_kb"] <= args.anon_margin_kb)
    targets.expect(f"a cycle took {worst:.2f} s to reconnect", worst <= 10)


def faults(args, sock, standin, figures):
    """A second strap and malformed notifications, then each fault of --fault-list in turn."""
    standin.send("second")
    standin.send("malformed 4")
    time.sleep(6 / args.speed)
    for fault, seconds in [f.split(":") for f in args.fault_list.split(",")]:
        seconds = float(seconds)
        t = time.time()
        standin.send(f"{fault} {seconds}")
        figures[f"reconnect_s_{fault}"] = round(strap.reconnect_after(standin, t), 2)
        time.sleep(4 / args.speed)
    s = rig.status(args.bin, sock)
    figures["malformed_counted"] = s["hr"]["malformed"]
    figures["second_strap_used"] = any(e.get("address") == "11:22:33:44:55:66" for e in standin.where("connected"))


def recorded(args, work, sock, standin, started, figures, targets):
    """The session's stored readings and its FIT export against what the strap sent."""
    stop_at = time.time()
    s = rig.status(args.bin, sock)
    assert rig.cli(args.bin, sock, "stop").returncode == 0
    session = s["session"]
    time.sleep(1)
    sent = [e for e in standin.events if e["event"] == "notify" and started <= e["at"] <= stop_at]
    valid_sent = [e for e in sent if e["bpm"] > 0]
    db = sqlite3.connect(os.path.join(work, "state", "moonrunner.sqlite"))
    rows = db.execute("SELECT COUNT(*), COUNT(bpm) FROM hr_sample WHERE session_id = ?", (session,)).fetchone()
    figures.update({"notifications_sent": len(sent), "heart_rates_sent": len(valid_sent),
                    "readings_recorded": rows[0], "heart_rates_recorded": rows[1],
                    "hr_status": s["hr"]})
    # The first and last notifications may fall either side of ?START/?STOP: one each way.
    targets.expect(f"samples recorded {rows[1]} vs sent {len(valid_sent)}", abs(rows[1] - len(valid_sent)) <= 2)
    rr_sent = [round(ms) for e in sent for ms in e["rr_ms"]]
    rr_fit, errors, records_hr, records = strap.fit_rr(args.bin, sock, session, work)
    figures.update({"rr_sent": len(rr_sent), "rr_in_fit": len(rr_fit), "fit_errors": errors,
                    "fit_records_with_hr": records_hr, "fit_records": records})
    # The FIT's intervals must be a run of those the strap sent, in order and
    # to the ms; their number that of the window give or take the
    # notifications either side of ?START and ?STOP.
    every = [round(ms) for e in standin.events if e["event"] == "notify" for ms in e["rr_ms"]]
    edge = 2 * max((len(e["rr_ms"]) for e in sent), default=0)
    run = any(every[i:i + len(rr_fit)] == rr_fit for i in range(len(every) - len(rr_fit) + 1))
    targets.expect(f"RR intervals in FIT ({len(rr_fit)}) are not those sent ({len(rr_sent)})",
                   not rr_sent or (rr_fit and run and abs(len(rr_sent) - len(rr_fit)) <= edge))
    for k, v in figures.items():
        if k.startswith("reconnect_s_"):
            targets.expect(f"{k} {v} s > 10 s", v <= 10)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    rig.common_args(p, data=False, build="debug")
    p.add_argument("--trace", default=os.path.join(rig.DATA, "hr", "fenix5_run_rr.hr.csv"))
    p.add_argument("--rate", type=int, default=1)
    p.add_argument("--speed", type=float, default=1)
    p.add_argument("--seconds", type=float, default=20, help="recording before the faults")
    p.add_argument("--faults", action="store_true", help="asleep, out of range, bluetoothd restart, malformed, second strap")
    p.add_argument("--fault-list", default="asleep:8,range:12,restart:3", help="FAULT:SECONDS,... for --faults")
    p.add_argument("--cycles", type=int, default=0, help="disconnect-reconnect cycles")
    p.add_argument("--warmup", type=int, default=100, help="cycles before the memory baseline")
    p.add_argument("--anon-margin-kb", type=int, default=256,
                   help="anonymous memory allowed to come and go after the warm-up (allocator pages)")
    p.add_argument("--seed", type=int, default=22)
    p.add_argument("--keep", action="store_true", help="keep the work folder (logs, the stand-in's events)")
    args = p.parse_args()

    work = tempfile.mkdtemp(prefix="mr-hr-")
    sock = os.path.join(work, "mr.sock")
    dbus = standin = gps = daemon = None
    figures = {"rate_hz": args.rate}
    targets = rig.Targets(args.check, stream=sys.stderr)
    try:
        dbus, bus_address, env = system_bus.start(work)
        standin = strap.StandIn(env, args.trace, args.rate, args.speed, open(os.path.join(work, "standin.log"), "w"),
                              connect_delay=0.05 if args.cycles else 0.3, seed=args.seed, loop=True)
        rig.wait_for(lambda: standin.where("bluetoothd"), 10, "the stand-in on the bus")
        port = rig.free_port()
        gps = rig.start_gpsfake(os.path.join(rig.DEMO, "walk.nmea"), port, work, 1 / (4 * args.speed),
                                options=("-1",) if not args.cycles else (), wait=10)
        daemon = rig.start_daemon(args.bin, sock, os.path.join(work, "state"), port,
                                  rig.demo_imu(args.speed, loop=True), "--hr", "ble:auto",
                                  log=open(os.path.join(work, "daemon.log"), "w"), env=env, wait=None)
        rig.wait_for(lambda: os.path.exists(sock) and rig.status(args.bin, sock), 20, "moonrunnerd")
        rig.wait_for(lambda: (rig.status(args.bin, sock) or {}).get("hr_state") == "connected", 30, "hr_state connected")
        if args.cycles:
            cycles(args, daemon, standin, bus_address, figures, targets)
        started = time.time()
        assert rig.cli(args.bin, sock, "start").returncode == 0
        time.sleep(args.seconds / args.speed)
        if args.faults:
            faults(args, sock, standin, figures)
        recorded(args, work, sock, standin, started, figures, targets)
    except Exception:
        print("status:", json.dumps(rig.status(args.bin, sock) if daemon else None), file=sys.stderr)
        raise
    finally:
        if standin:
            with open(os.path.join(work, "standin.jsonl"), "w") as f:
                for e in standin.events:
                    f.write(json.dumps(e) + "\n")
        rig.stop_daemon(daemon)
        rig.end_gpsfake(gps)
        if standin:
            standin.stop()
        system_bus.end(dbus)
    print(json.dumps(figures))
    status = targets.report()
    if args.keep:
        print("work folder:", work, file=sys.stderr)
    elif not targets.missed:
        shutil.rmtree(work, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
