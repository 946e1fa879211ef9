#!/usr/bin/env python3
"""Elevation accuracy on the simulated runs.

Runs `moonrunner analyze --gps X.gpsd.json [--baro X.baro.csv.gz] --json --track`
over every scenario in DATA/gps/sim, with the barometer trace of the same
scenario (DATA/baro) and without it, and scores against the scenario's truth:

  * elevation gain against `true_elevation_gain_m`, loss against the sum of
    the descents of `positions.alt_msl` (the gain is the sum of its climbs);
  * with the barometer, the absolute altitude: the median |altitude - truth|
    of the track points after the first 2 minutes (truth interpolated at each
    point's fix time on `t0_utc + t_s`).

Targets:
  with barometer   gain and loss within 10 % or 3 m of the truth, whichever is
                   larger; d_stationary at most 1 m; median altitude error <= 5 m
  GPS only         hilly (c_trail) gain within 10 %; flat scenarios gain within
                   15 m of the truth

    python3 Tests/Tools/eval_elevation.py --bin .build/release [--data ../shared/data] [--check]

--bin is the build folder. With --check the exit status is 1 when a target
is missed, except the ones listed in OPEN (targets the issue still has open,
printed as MISSED (open) on every run so they are never forgotten). When the
data folder is absent the script says SKIP loudly and exits 0 (the data is
not part of the repository).
"""
import argparse
import bisect
import json
import os
import sys

import rig
import trace_files

SCENARIOS = ["a_track", "b_urban", "c_trail", "d_stationary", "e_intervals"]
HILLY = {"c_trail"}
STILL = {"d_stationary"}
# Targets missed today and left open in the issue (scenario, case). GPS alone cannot tell its
# own wander from a small hill: a terrain model answers b_urban (eval_terrain.py,
# GPS with a DEM within its target, in make accuracy beside this), so the GPS-only figure is
# shown for reference and no longer a target; it stays printed so that nobody mistakes it for one.
OPEN = {("b_urban", "gps")}


def truth_of(path):
    with open(path) as f:
        d = json.load(f)
    alts = d["positions"]["alt_msl"]
    loss = sum(max(0.0, a - b) for a, b in zip(alts, alts[1:]))
    t0 = trace_files.utc(d.get("t0_utc") or d["first_fix_utc"])
    times = [t0 + t for t in d["positions"]["t_s"]]
    return d["true_elevation_gain_m"], loss, times, alts


def median_altitude_error(track, times, alts, skip=120.0):
    if not track:
        return float("nan")
    start = track[0].get("fix_time", track[0]["time"])
    errors = []
    for p in track:
        t = p.get("fix_time", p["time"])
        if t - start < skip or "alt" not in p:
            continue
        i = bisect.bisect_left(times, t)
        if i <= 0 or i >= len(times):
            continue
        w = (t - times[i - 1]) / (times[i] - times[i - 1])
        errors.append(abs(p["alt"] - (alts[i - 1] + w * (alts[i] - alts[i - 1]))))
    errors.sort()
    return errors[len(errors) // 2] if errors else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    rig.common_args(ap)
    args = ap.parse_args()

    sim = os.path.join(args.data, "gps", "sim")
    baro_dir = os.path.join(args.data, "baro")
    if not (os.path.isdir(sim) and os.path.isdir(baro_dir)):
        return rig.skip(f"{sim} or {baro_dir} not found")
    rig.program(args.bin, "moonrunner")

    targets = rig.Targets(args.check)
    print(f"{'scenario':<13} {'source':<6} {'gain':>7} {'truth':>7} {'loss':>7} {'truth':>7} {'alt err':>8}  verdict")
    for name in SCENARIOS:
        gain_t, loss_t, times, alts = truth_of(os.path.join(sim, f"{name}.truth.json"))
        gps = os.path.join(sim, f"{name}.gpsd.json")
        for case, baro in (("baro", os.path.join(baro_dir, f"{name}.baro.csv.gz")), ("gps", None)):
            r = rig.analyze(args.bin, "--gps", gps, "--track", *(["--baro", baro] if baro else []))
            gain, loss = r["elevation_gain_m"], r["elevation_loss_m"]
            misses = []
            alt_err = float("nan")
            if case == "baro":
                if r.get("altitude_source") != "barometric":
                    misses.append(f"altitude source {r.get('altitude_source')}")
                if name in STILL:
                    if gain > 1 or loss > 1:
                        misses.append("more than 1 m standing still")
                else:
                    for what, got, want in (("gain", gain, gain_t), ("loss", loss, loss_t)):
                        if abs(got - want) > max(3.0, 0.1 * want):
                            misses.append(f"{what} off by {got - want:+.1f} m (allowed {max(3.0, 0.1 * want):.1f})")
                alt_err = median_altitude_error(r.get("track", []), times, alts)
                if name not in STILL and not alt_err <= 5:
                    misses.append(f"median altitude error {alt_err:.1f} m > 5")
            else:
                if name in HILLY:
                    if abs(gain - gain_t) > 0.1 * gain_t:
                        misses.append(f"gain off by {100 * (gain - gain_t) / gain_t:+.1f} % (allowed 10 %)")
                elif abs(gain - gain_t) > 15:
                    misses.append(f"gain off by {gain - gain_t:+.1f} m (allowed 15)")
            verdict = targets.expect(f"{name}/{case}: " + "; ".join(misses), not misses, (name, case) in OPEN)
            alt_text = f"{alt_err:8.1f}" if alt_err == alt_err else f"{'-':>8}"
            print(f"{name:<13} {case:<6} {gain:7.1f} {gain_t:7.1f} {loss:7.1f} {loss_t:7.1f} {alt_text}  "
                  + (f"{verdict}: " + "; ".join(misses) if misses else verdict))
    if any(case == "gps" for _, case in OPEN):
        print("(GPS alone on a flat walk: for reference only; with a terrain model the same runs meet its targets, "
              "checked by eval_terrain.py)")
    return targets.report()


if __name__ == "__main__":
    sys.exit(main())
