#!/usr/bin/env python3
"""GPS filter accuracy on the labelled recordings.

Runs `moonrunner analyze --gps FILE --json` over the simulated runs in
DATA/sim (truth in X.truth.json) and the real receiver logs in DATA/real, and
prints the figures the filter is judged by:

  * distance error per moving scenario, their mean absolute error, the worst;
  * moving time against the truth's (extra column, depends on auto-pause);
  * distance standing still for 10 min (d_stationary);
  * phantom distance summed over the stationary real receiver logs;
  * the real 646 m walk (ikalman);
  * elevation gain on the trail run (c_trail).

    python3 Tests/Tools/eval_gps.py --bin .build/release [--data ../shared/data] [--check]

--bin is the build folder; --data may also name its gps/ folder. With --check
the exit status is 1 when a target is missed. When the data folder is absent
the script says SKIP loudly and exits 0 (the data is not part of the
repository).
"""
import argparse
import json
import os
import sys

import rig
import trace_files

SIM_MOVING = ["a_track", "b_urban", "c_trail", "e_intervals"]
SIM_STILL = "d_stationary"
STILL_LOGS = ["bu353s4", "cat-ms352", "mt3339", "neo-m8n", "quectel-l76k-dual", "rx210",
              "sirfstarv-nmea", "skytraq-dgps", "ublox-neo-m9n-nmea", "ublox-zed-f9p_hpg1.11"]
WALK = "real/nmea-converted/ikalman_walk.gpsd.json"

TARGETS = {
    "mae_pct": 1.5,          # mean |distance error|, moving scenarios
    "worst_pct": 3.0,        # worst single moving scenario
    "stationary_m": 10.0,    # d_stationary
    "still_logs_m": 5.0,     # summed over the stationary real logs
    "path_pct": 0.5,         # the written track, measured as sites do, against the distance
    "walk_m": (600.0, 660.0),
    "gain_pct": 10.0,        # c_trail elevation gain
}


def track_lengths(track):
    """Length of the written track as a site measures it (gpxpy's length_2d):
    per segment (a GPX's trkseg), and with the segments joined (gpsbabel reads a
    TCX's tracks as one); and the number of segments."""
    import gpxpy.geo as geo
    segments, joined_pts = [], []
    for p in track:
        loc = geo.Location(p["lat"], p["lon"])
        if p.get("new_segment") or not segments:
            segments.append([])
        segments[-1].append(loc)
        joined_pts.append(loc)
    return sum(geo.length_2d(s) for s in segments), geo.length_2d(joined_pts), len(segments)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    rig.common_args(ap)
    ap.add_argument("--no-auto-pause", action="store_true",
                    help="pass --no-auto-pause to analyze (the filter's distance without the engine's pauses)")
    args = ap.parse_args()

    data = trace_files.find_data(args.data, "gps", "sim", "real")
    if data is None:
        return rig.skip(f"GPS data folder not found under {args.data!r} (expected sim/ and real/)")
    rig.program(args.bin, "moonrunner")
    extra = ["--no-auto-pause"] if args.no_auto_pause else []

    print(f"{'scenario':<14} {'distance':>9} {'truth':>7} {'error':>8} {'moving':>7} {'truth':>7}"
          f" {'gain':>7} {'truth':>7}")
    errors = []
    gain_err = None
    paths = []
    for name in SIM_MOVING + [SIM_STILL]:
        truth = json.load(open(os.path.join(data, "sim", f"{name}.truth.json")))
        out = rig.analyze(args.bin, "--gps", os.path.join(data, "sim", f"{name}.gpsd.json"), *extra, "--track")
        if truth["true_distance_m"] > 0:
            paths.append((name, out["distance_m"]) + track_lengths(out["track"]))
        d, td = out["distance_m"], truth["true_distance_m"]
        g, tg = out["elevation_gain_m"], truth["true_elevation_gain_m"]
        if td > 0:
            e = (d - td) / td * 100
            errors.append((name, e))
            err = f"{e:+7.2f}%"
        else:
            err = f"{d:6.1f} m"
        if name == "c_trail" and tg > 0:
            gain_err = (g - tg) / tg * 100
        print(f"{name:<14} {d:9.1f} {td:7.0f} {err:>8} {out['moving_s']:7.0f} {truth['true_moving_time_s']:7.0f}"
              f" {g:7.1f} {tg:7.1f}")
        if name == SIM_STILL:
            stationary = d

    print()
    print("the written track as sites measure it (gpxpy length_2d; per segment as a GPX, joined as gpsbabel reads a TCX):")
    worst_path = 0.0
    for name, d, per_segment, joined, segments in paths:
        a, b = (per_segment - d) / d * 100, (joined - d) / d * 100
        worst_path = max(worst_path, abs(a), abs(b))
        print(f"  {name:<14} distance {d:8.1f} m  per segment {per_segment:8.1f} m ({a:+.2f} %)"
              f"  joined {joined:8.1f} m ({b:+.2f} %)  {segments} segment(s)")

    mae = sum(abs(e) for _, e in errors) / len(errors)
    worst_name, worst = max(errors, key=lambda x: abs(x[1]))

    print()
    still_total = 0.0
    print("stationary real logs (phantom distance, m):")
    for name in STILL_LOGS:
        out = rig.analyze(args.bin, "--gps", os.path.join(data, "real", "gpsd-test-logs", f"{name}.gpsd.json"), *extra)
        still_total += out["distance_m"]
        print(f"  {name:<24} {out['distance_m']:7.2f}")
    walk = rig.analyze(args.bin, "--gps", os.path.join(data, WALK), *extra)["distance_m"]

    print()
    lo, hi = TARGETS["walk_m"]
    rows = [
        ("mean |distance error|, moving sims", f"{mae:.2f} %", f"<= {TARGETS['mae_pct']} %", mae <= TARGETS["mae_pct"]),
        ("worst moving sim", f"{worst:+.2f} % ({worst_name})", f"<= {TARGETS['worst_pct']} %",
         abs(worst) <= TARGETS["worst_pct"]),
        ("d_stationary distance", f"{stationary:.1f} m", f"<= {TARGETS['stationary_m']} m",
         stationary <= TARGETS["stationary_m"]),
        ("stationary real logs, total", f"{still_total:.2f} m", f"<= {TARGETS['still_logs_m']} m",
         still_total <= TARGETS["still_logs_m"]),
        ("ikalman walk", f"{walk:.1f} m", f"{lo:.0f}-{hi:.0f} m", lo <= walk <= hi),
        ("written track vs distance, worst", f"{worst_path:.2f} %", f"<= {TARGETS['path_pct']} %",
         worst_path <= TARGETS["path_pct"]),
        ("c_trail elevation gain error", f"{gain_err:+.1f} %" if gain_err is not None else "n/a",
         f"within {TARGETS['gain_pct']} %", gain_err is not None and abs(gain_err) <= TARGETS["gain_pct"]),
    ]
    targets = rig.Targets(args.check)
    for label, value, target, ok in rows:
        print(f"{label:<38} {value:>22}   target {target:<12} {targets.expect(label, ok)}")
    return targets.report()


if __name__ == "__main__":
    sys.exit(main())
