#!/usr/bin/env python3
"""Each activity by its own rules: real runs against the watch, simulated hikes and rides
against their truth, through `moonrunner analyze --activity`.

Real runs (DATA/hr/X: X.gpsd.json, the watch's figures in X.hr.truth.json), GPS only, as the
activity the watch recorded (`watch_sport`: running -> run, trail running -> trail_run, walking ->
walk, hiking -> hike, cycling -> ride). Targets: distance within 2 % of the watch's
`watch_total_distance`, moving time within 2 % of its `watch_total_timer_time`. The watch's figures
are a peer's, not truth.

Simulated hikes and rides (Tests/Tools/sim_activity.py, made from their seeds into
.build/activity-sims and replayed once through real gpsd; among them slow steep hikes, under 0.6 m/s
on 16-40 % grades in four places): GPS only, and with an IMU composed along
the truth's intervals by compose_imu.py (a hiker: the step traces while moving, the zero-step traces
while resting; a rider, whose pedalling is no step: the zero-step traces throughout). Targets per
run: moving time within 2 % of `true_moving_time_s`; each rest (a stationary interval between two
moving ones: the hike's rests, a ride's traffic lights) found, a pause that starts and ends within
3 s of it; no pause where the wearer moved; distance within 1.5 % of `true_distance_m`.

With --cv the settings the issue leaves to judgement (TUNED: the creeping speed of slow progress,
the hike's wait without evidence of motion, the ride's pause speed and wait) are also chosen on all
scenarios but one (fewest targets missed, then the smallest mean |moving time error|) and scored on
the one left out, GPS only, beside the all-data figures of the shipped settings.

--held-out also scores the scenarios of sim_activity.HELD_OUT (two more slow steep hikes, in two
other places), on which nothing was ever chosen: with the shipped settings, GPS only and with the
IMU, and with --cv with the settings chosen on all the other scenarios.

    python3 Tests/Tools/eval_activities.py --bin .build/release [--data ../shared/data] [--cv] [--held-out]
        [--check] [--jobs N]

--bin is the build folder. With --check the exit status is 1 when a target is missed. Without the
shared data it says SKIP loudly (the simulations need its step traces; the real runs are its own).
"""
import argparse
import concurrent.futures as cf
import hashlib
import itertools
import json
import os
import subprocess
import sys

import rig
import sim_activity
import trace_files

SIMS = os.path.join(rig.ROOT, ".build", "activity-sims")
WATCH_SPORT = {"running": "run", "trail_running": "trail_run", "walking": "walk", "hiking": "hike",
               "cycling": "ride", "biking": "ride"}
TARGETS = {"real_distance_pct": 2.0, "real_moving_pct": 2.0, "sim_moving_pct": 2.0, "sim_distance_pct": 1.5,
           "rest_s": 3.0}
# Targets missed today and left open, (scenario, with the IMU): printed as MISSED (open) on every run so
# that nobody forgets them, not failing --check. steep_pyrenees with the IMU (seed 1): a rhythmic burst
# of the zero-step traces (uci: the step detector's false steps, 1.7 resumes an hour in eval_autopause)
# resumes the 107 s rest at 2.4 km 6.7 s before the hiker sets off; distance and moving time are right.
OPEN = {("steep_pyrenees", True)}
# The values tried by --cv, the shipped one among them.
TUNED = {
    "creep_speed_mps": [0.25, 0.3, 0.35],
    "hike_dwell_s": [10, 15, 20],
    "wheel_speed_mps": [0.8, 1.0, 1.5],
}


def simulations(scenarios, jobs):
    """The scenarios, written once per version of the generator (its hash and the names written are
    the folder's stamp), `jobs` at a time (each replays its log through its own gpsfake, a few minutes
    on a cold cache; a scenario whose log did not change keeps gpsd's JSON). Each as (name, activity,
    truth)."""
    stamp = hashlib.sha256(open(sim_activity.__file__, "rb").read()).hexdigest()[:16]
    stamp_path = os.path.join(SIMS, "stamp")
    made = (open(stamp_path).read().split() + ["", ""])[:2] if os.path.exists(stamp_path) else ["", ""]
    written = set(made[1].split(",")) - {""} if made[0] == stamp else set()
    wanted = {sc[0] for sc in scenarios}
    if not wanted <= written:
        os.makedirs(SIMS, exist_ok=True)
        with cf.ThreadPoolExecutor(max_workers=jobs) as ex:
            list(ex.map(lambda sc: sim_activity.write(*sc[:3], SIMS, gpsd=True, place=sc[3]), scenarios))
        with open(stamp_path, "w") as f:
            f.write(f"{stamp} {','.join(sorted(written | wanted))}\n")
    out = []
    for name, _, _, _ in scenarios:
        truth = json.load(open(os.path.join(SIMS, f"{name}.truth.json")))
        out.append((name, truth["activity"], truth))
    return out


def compose(name, kind, truth, data, seed):
    """The IMU trace composed along the scenario's intervals (made once for those intervals and that
    version of compose_imu.py)."""
    tool = open(os.path.join(rig.HERE, "compose_imu.py"), "rb").read()
    made_for = hashlib.sha256(tool + json.dumps(truth["intervals"]).encode()).hexdigest()[:8]
    path = os.path.join(SIMS, f"{name}-imu{seed}-{made_for}.csv.gz")
    if os.path.exists(path):
        return path
    steps = os.path.join(data, "steps")
    still = [os.path.join(steps, "uci_chest_casale_nonwalk")]
    moving = [os.path.join(steps, d) for d in ("oxford_step_counter", "adept_outdoor_run_hip")]
    where = ["--truth", os.path.join(SIMS, f"{name}.truth.json")]
    if kind == "ride":
        # A rider's body: no steps anywhere, the zero-step traces over the whole ride.
        still_all = [dict(i, state="stationary") for i in truth["intervals"]]
        where = ["--intervals", json.dumps(still_all), "--t0", str(int(trace_files.utc(truth["first_fix_utc"])))]
    subprocess.run([sys.executable, os.path.join(rig.HERE, "compose_imu.py"), *where, "--moving", *moving,
                    "--still", *still, "--seed", str(seed), "--rate", "50", "--out", path + ".part.gz"],
                   check=True, capture_output=True)
    os.replace(path + ".part.gz", path)
    return path


def score_sim(binary, name, kind, truth, imu=None, options=()):
    """One run of a scenario: its figures against the truth."""
    args = ["--gps", os.path.join(SIMS, f"{name}.gpsd.json"), "--activity", kind]
    if imu:
        args += ["--imu", imu]
    for o in options:
        args += ["--activity-option", o]
    r = rig.analyze(binary, *args)
    origin = trace_files.utc(truth["first_fix_utc"])
    ivs = truth["intervals"]
    rests = [(origin + i["start_s"], origin + i["end_s"]) for k, i in enumerate(ivs)
             if i["state"] == "stationary" and 0 < k < len(ivs) - 1]
    stills = [(origin + i["start_s"], origin + i["end_s"]) for i in ivs if i["state"] == "stationary"]
    end = r["events"][0]["time"] + r["elapsed_s"] if r["events"] else origin
    pauses = [(p["start"], p["end"] if p["end"] is not None else end) for p in r["pauses"]]
    errors = []
    for a, b in rests:
        near = [p for p in pauses if p[0] < b and p[1] > a]
        best = min(near, key=lambda p: abs(p[0] - a) + abs(p[1] - b)) if near else None
        errors.append(max(abs(best[0] - a), abs(best[1] - b)) if best else float("inf"))
    false = sum(1 for p in pauses if not any(p[0] < b + 1 and p[1] > a - 1 for a, b in stills))
    return {"name": name, "kind": kind, "imu": bool(imu),
            "distance_pct": 100 * (r["distance_m"] / truth["true_distance_m"] - 1),
            "moving_pct": 100 * (r["moving_s"] / truth["true_moving_time_s"] - 1),
            "moving_s": r["moving_s"], "true_moving_s": truth["true_moving_time_s"],
            "rests": len(rests), "rest_errors": errors, "false_pauses": false, "steps": r["steps"]}


def sim_ok(f):
    return (abs(f["moving_pct"]) <= TARGETS["sim_moving_pct"] and abs(f["distance_pct"]) <= TARGETS["sim_distance_pct"]
            and all(e <= TARGETS["rest_s"] for e in f["rest_errors"]) and f["false_pauses"] == 0)


def misses(f):
    """The targets one run missed."""
    return ((abs(f["moving_pct"]) > TARGETS["sim_moving_pct"]) + (abs(f["distance_pct"]) > TARGETS["sim_distance_pct"])
            + sum(e > TARGETS["rest_s"] for e in f["rest_errors"]) + f["false_pauses"])


def real_runs(binary, data):
    folder = os.path.join(data, "hr")
    out = []
    for truth_path in sorted(p for p in os.listdir(folder) if p.endswith(".hr.truth.json")) if os.path.isdir(folder) else []:
        run = truth_path[:-len(".hr.truth.json")]
        truth = json.load(open(os.path.join(folder, truth_path)))
        activity = WATCH_SPORT.get(str(truth.get("watch_sport", "running")).lower(), "run")
        r = rig.analyze(binary, "--gps", os.path.join(folder, f"{run}.gpsd.json"), "--activity", activity)
        out.append({"run": run, "activity": activity, "distance_m": r["distance_m"], "moving_s": r["moving_s"],
                    "pauses": len(r["pauses"]), "watch_distance_m": truth["watch_total_distance"],
                    "watch_timer_s": truth["watch_total_timer_time"],
                    "distance_pct": 100 * (r["distance_m"] / truth["watch_total_distance"] - 1),
                    "moving_pct": 100 * (r["moving_s"] / truth["watch_total_timer_time"] - 1)})
    return out


def cross_validate(binary, sims, jobs, kept=()):
    """Leave one scenario out: the TUNED settings chosen on the others, scored on it (GPS only); and the
    settings chosen on all of them, scored on each scenario `kept` out of every choice."""
    keys = list(TUNED)
    sets = [dict(zip(keys, values)) for values in itertools.product(*(TUNED[k] for k in keys))]
    every = list(sims) + list(kept)
    jobs_list = [(i, s) for i in range(len(sets)) for s in range(len(every))]

    def one(job):
        i, s = job
        name, kind, truth = every[s]
        return i, s, score_sim(binary, name, kind, truth, options=[f"{k}={v}" for k, v in sets[i].items()])

    with cf.ThreadPoolExecutor(max_workers=jobs) as ex:
        results = list(ex.map(one, jobs_list))
    table = {(i, s): f for i, s, f in results}

    def choose(among):
        return min(range(len(sets)), key=lambda i: (sum(misses(table[(i, o)]) for o in among),
                                                    sum(abs(table[(i, o)]["moving_pct"]) for o in among)))

    held = []
    for s in range(len(sims)):
        best = choose([o for o in range(len(sims)) if o != s])
        held.append((sets[best], table[(best, s)]))
    best = choose(range(len(sims)))
    return held, [(sets[best], table[(best, s)]) for s in range(len(sims), len(every))]


def print_sims(title, rows):
    print(title)
    print(f"  {'scenario':20s} {'IMU':4s} {'distance':>9s} {'moving':>8s} {'moving s':>9s} {'truth s':>8s} "
          f"{'rests within 3 s':>17s} {'worst':>6s} {'false':>6s} {'steps':>6s}")
    for f in rows:
        found = sum(e <= TARGETS["rest_s"] for e in f["rest_errors"])
        worst = max(f["rest_errors"], default=0.0)
        print(f"  {f['name']:20s} {'yes' if f['imu'] else 'no':4s} {f['distance_pct']:+8.2f}% {f['moving_pct']:+7.2f}% "
              f"{f['moving_s']:9.0f} {f['true_moving_s']:8.0f} {found:>11d} of {f['rests']:<3d} {worst:6.1f} "
              f"{f['false_pauses']:6d} {f['steps']:6d}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    rig.common_args(p, jobs=rig.CORES)
    p.add_argument("--cv", action="store_true", help="also leave one scenario out at a time")
    p.add_argument("--seed", type=int, default=1, help="seed of the composed IMU traces")
    p.add_argument("--held-out", action="store_true", help="also score the held-out scenarios (sim_activity.HELD_OUT: "
                   "no setting is chosen on them), and with --cv the settings chosen on all the others")
    a = p.parse_args()
    if not os.path.isdir(os.path.join(a.data, "steps")):
        return rig.skip(f"labelled data not found under {a.data} (steps/ for the composed IMU traces)")
    binary = a.bin
    rig.program(binary, "moonrunner")
    targets = rig.Targets(a.check)
    sims = simulations(sim_activity.SCENARIOS, a.jobs)
    kept = simulations(sim_activity.HELD_OUT, a.jobs) if a.held_out else []

    def sim_job(job):
        (name, kind, truth), with_imu = job
        imu = compose(name, kind, truth, a.data, a.seed) if with_imu else None
        return score_sim(binary, name, kind, truth, imu=imu)

    with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        rows = list(ex.map(sim_job, [(s, w) for w in (False, True) for s in sims]))
        kept_rows = list(ex.map(sim_job, [(s, w) for w in (False, True) for s in kept]))
    real = real_runs(binary, a.data)

    print("Real runs, GPS only, against the watch (a peer's figures):")
    print(f"  {'run':16s} {'as':9s} {'distance m':>11s} {'watch m':>9s} {'diff':>7s} {'moving s':>9s} {'timer s':>8s} "
          f"{'diff':>7s} {'pauses':>7s}")
    for r in real:
        ok = abs(r["distance_pct"]) <= TARGETS["real_distance_pct"] and abs(r["moving_pct"]) <= TARGETS["real_moving_pct"]
        verdict = targets.expect(f"{r['run']}: distance and moving time within 2 % of the watch's", ok)
        print(f"  {r['run']:16s} {r['activity']:9s} {r['distance_m']:11.1f} {r['watch_distance_m']:9.1f} "
              f"{r['distance_pct']:+6.2f}% {r['moving_s']:9.1f} {r['watch_timer_s']:8.1f} {r['moving_pct']:+6.2f}% "
              f"{r['pauses']:7d}  {verdict}")
    print_sims("Simulated hikes and rides (GPS only, then with the composed IMU):", rows)
    for f in rows:
        targets.expect(f"{f['name']} ({'with' if f['imu'] else 'without'} IMU): moving within 2 %, distance within "
                       f"1.5 %, every rest within 3 s, no false pause", sim_ok(f), (f["name"], f["imu"]) in OPEN)
    worst = max(abs(f["moving_pct"]) for f in rows)
    print(f"\n  worst |moving time error| {worst:.2f} %  worst |distance error| "
          f"{max(abs(f['distance_pct']) for f in rows):.2f} %  worst rest error "
          f"{max(max(f['rest_errors'], default=0) for f in rows):.1f} s")
    if kept_rows:
        print_sims("\nHeld out (nothing chosen on them), the shipped settings:", kept_rows)
        for f in kept_rows:
            targets.expect(f"{f['name']} ({'with' if f['imu'] else 'without'} IMU, held out): moving within 2 %, "
                           f"distance within 1.5 %, every rest within 3 s, no false pause", sim_ok(f))
    if a.cv:
        held, chosen_all = cross_validate(binary, sims, a.jobs, kept)
        print("\nLeave one scenario out (GPS only): the settings chosen on the others, scored on it:")
        print_sims("", [f for _, f in held])
        for chosen, f in held:
            print(f"  {f['name']:20s} chose " + ", ".join(f"{k}={v}" for k, v in chosen.items()))
            targets.expect(f"{f['name']} held out: moving within 2 %, distance within 1.5 %, every rest within 3 s",
                           sim_ok(f))
        if chosen_all:
            print_sims("\nHeld out (GPS only), the settings chosen on all the others ("
                       + ", ".join(f"{k}={v}" for k, v in chosen_all[0][0].items()) + "):", [f for _, f in chosen_all])
            for _, f in chosen_all:
                targets.expect(f"{f['name']} held out, settings chosen on the others: moving within 2 %, distance "
                               f"within 1.5 %, every rest within 3 s", sim_ok(f))
    print(json.dumps({"real": real, "sims": rows + kept_rows}), file=open(os.path.join(SIMS, "figures.json"), "w"))
    return targets.report()


if __name__ == "__main__":
    sys.exit(main())
