#!/usr/bin/env python3
"""Cross-validation and sensitivity of course following.

The matcher's settings are set on principle (see docs/algorithms.md,
"Courses"), none fitted to a course. This checks that
claim on the labelled courses of DATA/courses (GPX; the three formats give the
same points):

  * sensitivity: each setting varied alone around its value, the targets
    missed over all courses;
  * leave-one-course-out: for each course, the grid point that does best on
    the other courses (fewest targets missed, then the smallest event timing
    error, then the smallest median progress error) is scored on the course
    left out, beside the shipped settings on it.

    python3 Tests/Tools/cv_course.py --bin .build/release [--data ../shared/data] [--jobs N]

Takes a few minutes (hundreds of `analyze` runs); not part of `make test`.
"""
import argparse
import itertools
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import eval_course as ev
import rig

DEFAULTS = {"max_heading_deg": 45, "min_margin_m": 5, "off_dwell_s": 5, "on_dwell_s": 3}
GRID = {
    "max_heading_deg": [30, 45, 60, 180],   # 180: no heading test
    "min_margin_m": [3, 5, 8],
    "off_dwell_s": [3, 5, 8],
    "on_dwell_s": [2, 3, 5],
}


def judge(s, detour):
    """(targets missed, mean |event timing error| s, median progress error) of one run."""
    missed, timing = 0, []
    missed += s["median"] > ev.TARGETS["median_m"]
    missed += s["p95"] > ev.TARGETS["p95_m"]
    missed += s["wrong"] > ev.TARGETS["wrong_s"]
    if detour:
        for evs, ref in ((s["offs"], s["first_off"]), (s["ons"], s["last_off"])):
            ok = len(evs) == 1 and abs(evs[0][0] - ref) <= ev.TARGETS["detour_s"]
            missed += not ok
            timing.append(abs(evs[0][0] - ref) if evs else 60.0)
    else:
        missed += len(s["offs"]) > 0
    ok = len(s["fins"]) == 1 and s["arrive"] is not None and abs(s["fins"][0][0] - s["arrive"]) <= ev.TARGETS["finish_s"]
    missed += not ok
    timing.append(abs(s["fins"][0][0] - s["arrive"]) if s["fins"] and s["arrive"] is not None else 60.0)
    return missed, sum(timing) / len(timing), s["median"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    rig.common_args(ap, check=False, jobs=2)
    args = ap.parse_args()
    courses_dir = os.path.join(args.data, "courses")
    if not os.path.isdir(courses_dir):
        return rig.skip(f"{courses_dir} is absent")
    rig.program(args.bin, "moonrunner")
    names = ev.course_names(args.data)
    truths = {n: json.load(open(os.path.join(courses_dir, f"{n}.course.truth.json"))) for n in names}

    def run(name, params):
        extra = [a for k, v in params.items() for a in ("--course-option", f"{k}={v}")]
        s = ev.follow(args.bin, args.data, name, "gpx", truths[name], extra)
        return judge(s, any(truths[name]["off_course"])), s

    keys = list(GRID)
    configs = [dict(zip(keys, values)) for values in itertools.product(*(GRID[k] for k in keys))]
    jobs = [(i, n) for i in range(len(configs)) for n in names]
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = dict(zip(jobs, pool.map(lambda j: run(j[1], configs[j[0]]), jobs)))
    default_index = configs.index(DEFAULTS)

    print("sensitivity (one setting varied, the others as shipped): targets missed over all courses")
    for k in keys:
        cells = []
        for v in GRID[k]:
            i = configs.index({**DEFAULTS, k: v})
            cells.append(f"{v}: {sum(results[(i, n)][0][0] for n in names)}")
        print(f"  {k:<16} " + "   ".join(cells) + f"   (shipped {DEFAULTS[k]})")

    print("\nleave-one-course-out (GPX)")
    print(f"  {'held out':<16}{'chosen on the others':<62}{'held-out missed':>16}{'median':>8}{'timing':>8}"
          f"   {'shipped: missed':>15}{'median':>8}{'timing':>8}")
    total_cv = total_shipped = 0
    for held in names:
        train = [n for n in names if n != held]

        def objective(i):
            js = [results[(i, n)][0] for n in train]
            return (sum(j[0] for j in js), sum(j[1] for j in js) / len(js), sum(j[2] for j in js) / len(js))

        best = min(range(len(configs)), key=objective)
        (m, t, med), _ = results[(best, held)]
        (dm, dt, dmed), _ = results[(default_index, held)]
        total_cv += m
        total_shipped += dm
        chosen = ", ".join(f"{k}={configs[best][k]}" for k in keys)
        print(f"  {held:<16}{chosen:<62}{m:>16}{med:8.2f}{t:8.1f}   {dm:>15}{dmed:8.2f}{dt:8.1f}")
    print(f"\n  targets missed on held-out courses: cross-validated {total_cv}, shipped settings {total_shipped}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
