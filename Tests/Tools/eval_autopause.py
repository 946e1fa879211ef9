#!/usr/bin/env python3
"""Auto-pause accuracy on the labelled recordings.

Runs `moonrunner analyze ... --json` and measures, from its `pauses`
(`[{"start","end","detected_at"}]`) and `events`:

  * ipol_healthy_gait_lowback (stand, walk, stand): median |resume end - first
    heel strike|, median |final pause start - last heel strike|, median
    (final pause detected_at - last heel strike);
  * uci_chest_casale_nonwalk (never moving): resumes per hour after the first pause;
  * gps/sim scenarios, GPS only: moving time against true_moving_time_s;
  * composed IMU + GPS traces (Tests/Tools/compose_imu.py lays real IMU segments
    from steps/ along each scenario's moving and stationary intervals): moving
    time against the truth, stops >= 5 s detected, false pauses in continuous motion.
    A stop that lasts until the recording ends counts like any other: the
    session's stop (analyze stops at the last input) turns a still tail of
    1.5 s or more into a pause back-dated to the last motion (`still_at_stop`),
    so a stop shorter than the 8 s dwell at the very end is detected too.

    python3 Tests/Tools/eval_autopause.py --bin .build/release [--data ../shared/data] [--check] [--jobs N]

--bin is the build folder. With --check the exit status is 1 when a target is
missed. When the data folder is absent the script says SKIP loudly and exits 0.
"""
import argparse
import concurrent.futures as cf
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile

import rig
import trace_files

TARGETS = {
    "ipol_resume": 1.0, "ipol_pause": 1.0, "ipol_latency": 3.0, "uci_resumes_per_h": 5.0,
    "gps_moving_pct": 3.0, "fused_moving_pct": 1.5,
}


def ipol(binary, folder, jobs):
    rows = []
    for csv in sorted(glob.glob(os.path.join(folder, "*.csv.gz"))):
        steps = trace_files.read_steps(csv[:-7] + ".steps.csv")
        if not steps:
            continue
        rows.append((csv, steps))

    def one(item):
        csv, steps = item
        r = rig.analyze(binary, "--imu", csv)
        first, last = steps[0], steps[-1]
        pauses = r["pauses"]
        t0 = r["events"][0]["time"] if r["events"] else 0.0
        t_end = t0 + r["elapsed_s"]
        initial = [p for p in pauses if p["start"] <= first and p["end"] is not None]
        resume_err = abs(initial[0]["end"] - first) if initial else first - t0
        final = [p for p in pauses if p["start"] >= last - 3.0]
        if final:
            pause_err = abs(final[-1]["start"] - last)
            latency = final[-1]["detected_at"] - last
        else:
            pause_err = t_end - last
            latency = float("inf")
        return resume_err, pause_err, latency

    with cf.ThreadPoolExecutor(max_workers=jobs) as ex:
        res = list(ex.map(one, rows))
    subjects = [int(os.path.basename(csv).split("-")[0]) for csv, _ in rows]
    return summarise(res) | {"by_subject": {s: summarise([r for r, q in zip(res, subjects) if q == s])
                                            for s in sorted(set(subjects))},
                             "by_half": {h: summarise([r for r, q in zip(res, subjects) if (q > 7) == (h == 1)])
                                         for h in (0, 1)}}


def summarise(res):
    """Medians of (resume error, pause error, pause latency) over trials."""
    return {
        "n": len(res),
        "resume": statistics.median(r[0] for r in res),
        "pause": statistics.median(r[1] for r in res),
        "latency": statistics.median(r[2] for r in res),
    }


def uci(binary, folder, jobs):
    files = sorted(glob.glob(os.path.join(folder, "*.csv.gz")))

    def one(csv):
        r = rig.analyze(binary, "--imu", csv)
        kinds = [e["event"] for e in r["events"]]
        hours = r["elapsed_s"] / 3600
        if "autopause" not in kinds:
            return 0, hours
        after = kinds[kinds.index("autopause"):]
        return after.count("autoresume"), hours

    with cf.ThreadPoolExecutor(max_workers=jobs) as ex:
        res = list(ex.map(one, files))
    resumes = sum(r[0] for r in res)
    hours = sum(r[1] for r in res)
    return {"n": len(files), "resumes": resumes, "hours": hours, "per_h": resumes / hours if hours else 0.0}


def moving_scenarios(sim):
    out = []
    for truth_path in sorted(glob.glob(os.path.join(sim, "*.truth.json"))):
        truth = json.load(open(truth_path))
        name = os.path.basename(truth_path)[:-11]
        if truth.get("true_distance_m", 0) <= 0:
            continue
        out.append((name, truth_path, truth))
    return out


def gps_only(binary, sim):
    res = []
    for name, truth_path, truth in moving_scenarios(sim):
        r = rig.analyze(binary, "--gps", truth_path.replace(".truth.json", ".gpsd.json"))
        true_m = truth["true_moving_time_s"]
        res.append((name, r["moving_s"], true_m, 100 * (r["moving_s"] - true_m) / true_m))
    return res


def overlap(a0, a1, b0, b1):
    return max(0.0, min(a1, b1) - max(a0, b0))


def fused(binary, data, sim, tmp, seeds, jobs):
    steps = os.path.join(data, "steps")
    moving = [os.path.join(steps, d) for d in ("oxford_step_counter", "adept_outdoor_run_hip")
              if os.path.isdir(os.path.join(steps, d))]
    still = [os.path.join(steps, "uci_chest_casale_nonwalk")]
    runs = [(name, truth_path, truth, seed) for name, truth_path, truth in moving_scenarios(sim) for seed in seeds]

    def one(job):
        name, truth_path, truth, seed = job
        csv = os.path.join(tmp, f"{name}-{seed}.csv")
        subprocess.run([sys.executable, os.path.join(rig.HERE, "compose_imu.py"), "--truth", truth_path,
                        "--moving", *moving, "--still", *still, "--seed", str(seed), "--out", csv],
                       check=True, capture_output=True)
        r = rig.analyze(binary, "--imu", csv, "--gps", truth_path.replace(".truth.json", ".gpsd.json"))
        t0 = r["events"][0]["time"] if r["events"] else 0.0
        # The intervals on the trace clock: they are seconds from the first fix, where the composed IMU starts.
        origin = trace_files.utc(truth["first_fix_utc"])
        stops = [(origin + i["start_s"], origin + i["end_s"]) for i in truth["intervals"]
                 if i["state"] == "stationary" and i["end_s"] - i["start_s"] >= 5]
        moves = [(origin + i["start_s"], origin + i["end_s"]) for i in truth["intervals"] if i["state"] == "moving"]
        pauses = [(p["start"], p["end"] if p["end"] is not None else t0 + r["elapsed_s"]) for p in r["pauses"]]
        detected = sum(1 for s in stops if any(overlap(s[0], s[1], p[0], p[1]) >= 0.5 * min(5, s[1] - s[0]) for p in pauses))
        false = sum(1 for p in pauses
                    if not any(overlap(p[0] - 1, p[1] + 1, s[0], s[1]) > 0 for s in stops)
                    and any(overlap(p[0], p[1], m[0], m[1]) > 0 for m in moves))
        # Moving time over the scenario's own span (the session runs from the first to the last input).
        true_m = truth["true_moving_time_s"]
        pct = 100 * (r["moving_s"] - true_m) / true_m
        return name, seed, r["moving_s"], true_m, pct, len(stops), detected, false, r["steps"]

    with cf.ThreadPoolExecutor(max_workers=jobs) as ex:
        return list(ex.map(one, runs))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    rig.common_args(p, jobs=rig.CORES)
    p.add_argument("--seeds", default="1,2")
    a = p.parse_args()
    data = a.data
    if not os.path.isdir(os.path.join(data, "steps")) or not os.path.isdir(os.path.join(data, "gps", "sim")):
        return rig.skip(f"labelled data not found under {data} (steps/ and gps/sim/)")
    rig.program(a.bin, "moonrunner")
    targets = rig.Targets(a.check)

    def verdict(name, value, target, fmt, good):
        print(f"{name:58s} {fmt.format(value):>12s}   target {target:<12s} {targets.expect(name, good)}")

    ip = ipol(a.bin, os.path.join(data, "steps", "ipol_healthy_gait_lowback"), a.jobs)
    uc = uci(a.bin, os.path.join(data, "steps", "uci_chest_casale_nonwalk"), a.jobs)
    gp = gps_only(a.bin, os.path.join(data, "gps", "sim"))
    with tempfile.TemporaryDirectory() as tmp:
        fu = fused(a.bin, data, os.path.join(data, "gps", "sim"), tmp, [int(s) for s in a.seeds.split(",")], a.jobs)

    print("GPS only (gps/sim):")
    for name, m, t, pct in gp:
        print(f"  {name:14s} moving {m:7.1f} s  truth {t:7.1f} s  {pct:+6.2f} %")
    print("composed IMU + GPS:")
    for name, seed, m, t, pct, stops, det, false, steps in fu:
        print(f"  {name:14s} seed {seed}  moving {m:7.1f} s  truth {t:7.1f} s  {pct:+6.2f} %  "
              f"stops {det}/{stops}  false pauses {false}  steps {steps}")
    print("ipol by person (medians: |resume end - first heel strike|, |final pause start - last heel strike|, "
          "detected_at - last heel strike):")
    for h, f in ip["by_half"].items():
        print(f"  subjects {'1-7 ' if h == 0 else '8-14'} ({f['n']:2d} trials): {f['resume']:.2f} s  {f['pause']:.2f} s  "
              f"{f['latency']:.2f} s")
    print("  " + "; ".join(f"{s}: {f['resume']:.2f}/{f['pause']:.2f}/{f['latency']:.2f}"
                           for s, f in ip["by_subject"].items()))
    print()
    verdict(f"ipol: median |resume end - first heel strike| ({ip['n']} trials)", ip["resume"], "<= 1.0 s", "{:.2f} s",
            ip["resume"] <= TARGETS["ipol_resume"])
    verdict("ipol: median |final pause start - last heel strike|", ip["pause"], "<= 1.0 s", "{:.2f} s",
            ip["pause"] <= TARGETS["ipol_pause"])
    verdict("ipol: median (detected_at - last heel strike)", ip["latency"], "<= 3.0 s", "{:.2f} s",
            ip["latency"] <= TARGETS["ipol_latency"])
    verdict(f"uci: resumes per hour after the first pause ({uc['resumes']} in {uc['hours']:.2f} h)", uc["per_h"],
            "<= 5 /h", "{:.1f} /h", uc["per_h"] <= TARGETS["uci_resumes_per_h"])
    worst_gps = max(abs(r[3]) for r in gp)
    verdict("gps/sim GPS only: worst |moving time error|", worst_gps, "<= 3 %", "{:.2f} %", worst_gps <= TARGETS["gps_moving_pct"])
    worst_fused = max(abs(r[4]) for r in fu)
    verdict("composed IMU+GPS: worst |moving time error|", worst_fused, "<= 1.5 %", "{:.2f} %",
            worst_fused <= TARGETS["fused_moving_pct"])
    stops = sum(r[5] for r in fu)
    detected = sum(r[6] for r in fu)
    verdict("composed IMU+GPS: stops >= 5 s detected", detected, f"all {stops}", "{:d}", detected == stops)
    false = sum(r[7] for r in fu)
    verdict("composed IMU+GPS: false pauses during continuous motion", false, "0", "{:d}", false == 0)
    return targets.report()


if __name__ == "__main__":
    sys.exit(main())
