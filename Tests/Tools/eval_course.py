#!/usr/bin/env python3
"""Course following accuracy on the labelled courses (issue 13).

For every course in DATA/courses (X.course.gpx|tcx|fit with X.course.truth.json)
runs `moonrunner analyze --gps DATA/gps/sim/SCENARIO.gpsd.json --course FILE --json`
(SCENARIO is X without a `_detour` suffix) and scores `course_timeline` and the
course events against the truth, per second of the run:

  * progress error while on course (truth and matcher both), after the
    first 60 s: median and 95th percentile;
  * seconds matched to the wrong lap or leg (progress error > 100 m);
  * off_course alerts on the exact courses (every one is false);
  * on a detour course: exactly one off_course and one on_course, detected
    within 15 s of the truth's first / last off-course second;
  * course_finished exactly once, detected within 20 s of arriving (the
    truth's first second with nothing left to go).

Event times are judged by `detected_at` (when the wearer would hear it),
`time` (back-dated to when the evidence began) is shown beside it.

    python3 Tests/Tools/eval_course.py --bin .build/debug/moonrunner --data ../shared/data [--check]

With --check the exit status is 1 when a target is missed. When the data
folder is absent the script says SKIP loudly and exits 0 (the data is not part
of the repository).
"""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys

FORMATS = ["gpx", "tcx", "fit"]
TARGETS = {
    "median_m": 5.0,
    "p95_m": 15.0,
    "wrong_s": 0,
    "false_off": 0,
    "detour_s": 15.0,
    "finish_s": 20.0,
}
WRONG_LEG_M = 100.0
SETTLE_S = 60.0


def analyze(binary, gps, course, extra=()):
    cmd = [binary, "analyze", "--gps", gps, "--course", course, "--json", *extra]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({res.returncode}): {res.stderr.strip()}")
    return json.loads(res.stdout)


def percentile(values, q):
    if not values:
        return float("nan")
    v = sorted(values)
    k = (len(v) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def score(out, truth):
    """Figures of one analyze run against one course truth."""
    t0 = datetime.datetime.fromisoformat(truth["t0_utc"].replace("Z", "+00:00")).timestamp()
    index = {int(round(t)): i for i, t in enumerate(truth["t_s"])}
    errors, wrong = [], 0
    disagree = 0
    for e in out["course_timeline"]:
        i = index.get(int(round(e["t"] - t0)))
        if i is None:
            continue
        tp = truth["progress_m"][i]
        if bool(e["off_course"]) != bool(truth["off_course"][i]):
            disagree += 1
        if tp is None or e["progress_m"] is None or truth["off_course"][i] or e["off_course"]:
            continue
        err = abs(e["progress_m"] - tp)
        if err > WRONG_LEG_M:
            wrong += 1
        if truth["t_s"][i] >= SETTLE_S:
            errors.append(err)
    events = [e for e in out["events"] if e["event"] in ("off_course", "on_course", "course_finished", "course_to_go")]
    rel = lambda e: (e["detected_at"] - t0, e["time"] - t0)
    offs = [rel(e) for e in events if e["event"] == "off_course"]
    ons = [rel(e) for e in events if e["event"] == "on_course"]
    fins = [rel(e) for e in events if e["event"] == "course_finished"]
    off_truth = [t for t, o in zip(truth["t_s"], truth["off_course"]) if o]
    arrive = next((t for t, g in zip(truth["t_s"], truth["to_go_m"]) if g is not None and g <= 0.5), None)
    return {
        "median": statistics.median(errors) if errors else float("nan"),
        "p95": percentile(errors, 0.95),
        "n": len(errors),
        "wrong": wrong,
        "disagree": disagree,
        "offs": offs,
        "ons": ons,
        "fins": fins,
        "first_off": off_truth[0] if off_truth else None,
        "last_off": off_truth[-1] if off_truth else None,
        "arrive": arrive,
    }


def fmt_events(evs, ref):
    if not evs:
        return "-"
    if ref is None:
        return ",".join(f"{d:.0f}" for d, _ in evs)
    return ",".join(f"{d - ref:+.0f}({t - ref:+.0f})" for d, t in evs)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="path to the moonrunner executable")
    ap.add_argument("--data", default="../shared/data", help="the data folder (holding courses/ and gps/sim/)")
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    ap.add_argument("--only", help="comma-separated course names to run")
    args = ap.parse_args()

    courses_dir = os.path.join(args.data, "courses")
    sim_dir = os.path.join(args.data, "gps", "sim")
    if not os.path.isdir(courses_dir) or not os.path.isdir(sim_dir):
        print("#" * 72)
        print(f"# SKIP eval_course: courses/ or gps/sim/ not found under {args.data!r}")
        print("#      (the recordings are not in the repository)")
        print("#" * 72)
        return 0
    if not os.access(args.bin, os.X_OK):
        print(f"eval_course: {args.bin} is not an executable", file=sys.stderr)
        return 2

    names = sorted(f[: -len(".course.truth.json")] for f in os.listdir(courses_dir) if f.endswith(".course.truth.json"))
    if args.only:
        names = [n for n in names if n in args.only.split(",")]
    failures = []
    print(f"{'course':<16}{'fmt':<5}{'median':>7}{'p95':>7}{'n':>6}{'wrong':>6}{'off≠':>6}"
          f"  {'off_course det(time)':<22}{'on_course det(time)':<22}{'finished det(time)':<18}")
    for name in names:
        truth = json.load(open(os.path.join(courses_dir, f"{name}.course.truth.json")))
        scenario = name[: -len("_detour")] if name.endswith("_detour") else name
        gps = os.path.join(sim_dir, f"{scenario}.gpsd.json")
        detour = any(truth["off_course"])
        for fmt in FORMATS:
            course = os.path.join(courses_dir, f"{name}.course.{fmt}")
            if not os.path.exists(course):
                failures.append(f"{name}.{fmt}: missing")
                continue
            s = score(analyze(args.bin, gps, course), truth)
            label = f"{name}.{fmt}"
            problems = []
            if not s["median"] <= TARGETS["median_m"]:
                problems.append("median")
            if not s["p95"] <= TARGETS["p95_m"]:
                problems.append("p95")
            if s["wrong"] > TARGETS["wrong_s"]:
                problems.append("wrong lap/leg")
            if detour:
                if len(s["offs"]) != 1 or abs(s["offs"][0][0] - s["first_off"]) > TARGETS["detour_s"]:
                    problems.append("detour off_course")
                if len(s["ons"]) != 1 or abs(s["ons"][0][0] - s["last_off"]) > TARGETS["detour_s"]:
                    problems.append("detour on_course")
            elif len(s["offs"]) > TARGETS["false_off"]:
                problems.append("false off_course")
            if len(s["fins"]) != 1 or s["arrive"] is None or abs(s["fins"][0][0] - s["arrive"]) > TARGETS["finish_s"]:
                problems.append("course_finished")
            print(f"{name:<16}{fmt:<5}{s['median']:7.2f}{s['p95']:7.2f}{s['n']:6d}{s['wrong']:6d}{s['disagree']:6d}"
                  f"  {fmt_events(s['offs'], s['first_off']):<22}{fmt_events(s['ons'], s['last_off']):<22}"
                  f"{fmt_events(s['fins'], s['arrive']):<18}{'ok' if not problems else 'MISSED: ' + ', '.join(problems)}")
            failures += [f"{label}: {p}" for p in problems]
    print()
    print("targets: median <= 5 m, p95 <= 15 m (on course, after 60 s); 0 s on a wrong lap/leg (> 100 m);")
    print("         0 off_course on exact courses; detour off/on one each within 15 s of the truth's first/last")
    print("         off second; course_finished once within 20 s of arriving. Event columns: detected_at")
    print("         relative to the truth's moment (time, back-dated, in brackets); off≠: seconds where")
    print("         off_course disagrees with the truth.")
    if failures:
        print(f"\n{len(failures)} target(s) missed: {'; '.join(failures)}")
    if args.check and failures:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
