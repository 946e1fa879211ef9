#!/usr/bin/env python3
"""What the runner uploads is what the Pi measured, on every moving sim scenario.

For each moving scenario of `gps/sim`, `live_session.py` records the run live
(gpsfake + moonrunnerd + the emulated IMU replaying a trace composed on the
receiver's clock, the real CLI), exports it and measures the files as sites do,
and runs `moonrunner analyze` on the same inputs over the same span. Targets:

  * every export (GPX per segment, GeoJSON, TCX as gpsbabel reads it, FIT's last
    record.distance and session.total_distance) within 0.5 % of the session;
  * the session within 1.5 % of the truth;
  * live equals offline: distance within 0.5 %, moving time within 1 s per pause,
    steps exact, the same pauses (each end within 1 s);
  * FIT record times in order.

    eval_live.py --bin .build/release [--data ../shared/data] [--speed 20] [--check] [--scenarios a,b] [--jobs N]

--bin is the build folder. When the data folder is absent the script says
SKIP loudly and exits 0.
"""
import argparse
import concurrent.futures as cf
import json
import os
import sys

import rig

EXPORT_PCT, TRUTH_PCT, LIVE_PCT, PAUSE_S = 0.5, 1.5, 0.5, 1.0


def record(a, name):
    """live_session.py's figures of one scenario recorded live."""
    out = rig.run_checked([sys.executable, os.path.join(rig.HERE, "live_session.py"), "--bin", a.bin, "--data", a.data,
                           "--scenario", name, "--speed", str(a.speed)], timeout=3600)
    return json.loads(out.strip().splitlines()[-1])


def pct(x, ref):
    return (x - ref) / ref * 100 if ref else float("inf")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    # --jobs: recordings at once (each replay keeps pace with its own feed).
    rig.common_args(p, jobs=2)
    p.add_argument("--speed", type=float, default=20)
    p.add_argument("--scenarios", default="")
    a = p.parse_args()
    sim = os.path.join(a.data, "gps", "sim")
    if not os.path.isdir(sim) or not os.path.isdir(os.path.join(a.data, "steps")):
        return rig.skip(f"{sim} or steps/ not found")
    rig.program(a.bin, "moonrunnerd")
    names = [n for n in a.scenarios.split(",") if n] or sorted(
        f[:-11] for f in os.listdir(sim) if f.endswith(".truth.json")
        and json.load(open(os.path.join(sim, f))).get("true_distance_m", 0) > 0)

    targets = rig.Targets(a.check)
    print(f"live recordings at {a.speed:g}x (gpsfake + moonrunnerd + emulated IMU), exports read as sites read them")
    print(f"{'scenario':<12} {'truth':>6} {'session':>8} {'vs truth':>8} | {'GPX':>7} {'GeoJSON':>7} {'TCX':>7}"
          f" {'FIT rec':>7} {'FIT tot':>7} | {'analyze':>8} {'d dist':>7} {'d moving':>8} {'steps':>11} pauses")
    with cf.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        results = list(ex.map(lambda n: record(a, n), names))
    for name, r in zip(names, results):
        s = r["session_m"]
        exports = {"GPX": r["gpx_m"], "GeoJSON": r["geojson_m"], "TCX": r["tcx_m"],
                   "FIT rec": r["fit_last_record_m"] or 0.0, "FIT tot": r["fit_total_m"] or 0.0}
        live_p, off_p = r["session_pauses"], r["analyze_pauses"]
        same_pauses = len(live_p) == len(off_p) and all(
            abs(x["start"] - y["start"]) <= PAUSE_S and abs((x["end"] or 0) - (y["end"] or 0)) <= PAUSE_S
            for x, y in zip(live_p, off_p))
        d_moving = r["session_moving_s"] - r["analyze_moving_s"]
        checks = {
            **{f"{k} within {EXPORT_PCT} % of the session": abs(pct(v, s)) <= EXPORT_PCT for k, v in exports.items()},
            f"session within {TRUTH_PCT} % of the truth": abs(pct(s, r["truth_m"])) <= TRUTH_PCT,
            f"live distance within {LIVE_PCT} % of analyze": abs(pct(s, r["analyze_m"])) <= LIVE_PCT,
            "live moving time within 1 s per pause of analyze": abs(d_moving) <= PAUSE_S * max(1, len(off_p)),
            "live steps equal analyze's": r["session_steps"] == r["analyze_steps"],
            "the same pauses within 1 s": same_pauses,
            "FIT times in order": bool(r["fit_times_ordered"]) and bool(r["fit_ok"]),
        }
        print(f"{name:<12} {r['truth_m']:6.0f} {s:8.1f} {pct(s, r['truth_m']):+7.2f}% |"
              + "".join(f" {pct(v, s):+6.2f}%" for v in exports.values())
              + f" | {r['analyze_m']:8.1f} {pct(s, r['analyze_m']):+6.2f}% {d_moving:+7.2f}s"
              f" {r['session_steps']:5d}/{r['analyze_steps']:<5d} {len(live_p)}/{len(off_p)}"
              f"{'' if same_pauses else ' differ'}")
        for label, ok in checks.items():
            targets.expect(f"{name}: {label}", ok)
    return targets.report()


if __name__ == "__main__":
    sys.exit(main())
