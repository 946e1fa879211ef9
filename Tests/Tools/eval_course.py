#!/usr/bin/env python3
"""Course following accuracy on the labelled courses.

For every course in DATA/courses (X.course.gpx|tcx|fit with X.course.truth.json)
runs `moonrunner analyze --gps DATA/gps/sim/SCENARIO.gpsd.json --course FILE --json`
(SCENARIO is X without a `_detour` suffix) and scores `course_timeline` and the
course events against the truth, per second of the run:

  * progress error while on course (truth and matcher both), after the
    first 60 s: median and 95th percentile;
  * seconds matched to the wrong lap or leg (progress error > 100 m);
  * off_course alerts on the exact courses (every one is false);
  * on a detour course: one off_course and one on_course for each time the
    truth is off course (b_urban_detour: the walker cuts through the course's
    loop, on it for a minute in between), each detected within 15 s
    of the truth's first off-course second / first second back;
  * course_finished exactly once, detected within 20 s of arriving (the
    truth's first second with nothing left to go).

Event times are judged by `detected_at` (when the wearer would hear it),
`time` (back-dated to when the evidence began) is shown beside it.

    python3 Tests/Tools/eval_course.py --bin .build/release [--data ../shared/data] [--check]

--bin is the build folder. With --check the exit status is 1 when a target is
missed. When the data
folder is absent the script says SKIP loudly and exits 0 (the data is not part
of the repository).
"""
import argparse
import json
import os
import statistics
import sys

import rig
import trace_files

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


def score(out, truth):
    """Figures of one analyze run against one course truth."""
    t0 = trace_files.utc(truth["t0_utc"])
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
    periods = []
    for t in off_truth:
        if periods and t - periods[-1][1] <= 1.5:
            periods[-1][1] = t
        else:
            periods.append([t, t])
    arrive = next((t for t, g in zip(truth["t_s"], truth["to_go_m"]) if g is not None and g <= 0.5), None)
    return {
        "median": statistics.median(errors) if errors else float("nan"),
        "p95": rig.percentile_linear(errors, 0.95),
        "n": len(errors),
        "wrong": wrong,
        "disagree": disagree,
        "offs": offs,
        "ons": ons,
        "fins": fins,
        "first_off": off_truth[0] if off_truth else None,
        "last_off": off_truth[-1] if off_truth else None,
        # Each time off: its first off second and the first second back.
        "periods": [(a, b + 1) for a, b in periods],
        "arrive": arrive,
    }


def fmt_events(evs, ref):
    if not evs:
        return "-"
    refs = ref if isinstance(ref, list) else [ref] * len(evs)
    if not refs or refs[0] is None or len(refs) != len(evs):
        return ",".join(f"{d:.0f}" for d, _ in evs)
    return ",".join(f"{d - r:+.0f}({t - r:+.0f})" for (d, t), r in zip(evs, refs))


def scenario_of(name):
    """The simulated run a course is followed on: X for both X and X_detour."""
    return name[: -len("_detour")] if name.endswith("_detour") else name


def course_names(data):
    """The labelled courses of DATA/courses, sorted."""
    return sorted(f[: -len(".course.truth.json")] for f in os.listdir(os.path.join(data, "courses"))
                  if f.endswith(".course.truth.json"))


def follow(bin_dir, data, name, fmt, truth, extra=()):
    """analyze following the course `name` (in format `fmt`) over its run, scored against its truth."""
    gps = os.path.join(data, "gps", "sim", f"{scenario_of(name)}.gpsd.json")
    course = os.path.join(data, "courses", f"{name}.course.{fmt}")
    return score(rig.analyze(bin_dir, "--gps", gps, "--course", course, *extra), truth)


def in_time(events, ref, limit_s):
    """Exactly one event, detected within `limit_s` of the truth's moment."""
    return len(events) == 1 and ref is not None and abs(events[0][0] - ref) <= limit_s


def each_in_time(events, refs, limit_s):
    """One event for each of the truth's moments, each detected within `limit_s` of its own."""
    return len(events) == len(refs) > 0 and all(abs(e[0] - r) <= limit_s for e, r in zip(events, refs))


def verdicts(s, detour):
    """Each target of one run: (what, met)."""
    rows = [("median", s["median"] <= TARGETS["median_m"]),
            ("p95", s["p95"] <= TARGETS["p95_m"]),
            ("wrong lap/leg", s["wrong"] <= TARGETS["wrong_s"])]
    if detour:
        rows += [("detour off_course", each_in_time(s["offs"], [a for a, _ in s["periods"]], TARGETS["detour_s"])),
                 ("detour on_course", each_in_time(s["ons"], [b for _, b in s["periods"]], TARGETS["detour_s"]))]
    else:
        rows.append(("false off_course", len(s["offs"]) <= TARGETS["false_off"]))
    rows.append(("course_finished", in_time(s["fins"], s["arrive"], TARGETS["finish_s"])))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    rig.common_args(ap)
    ap.add_argument("--only", help="comma-separated course names to run")
    args = ap.parse_args()

    courses_dir = os.path.join(args.data, "courses")
    if not os.path.isdir(courses_dir) or not os.path.isdir(os.path.join(args.data, "gps", "sim")):
        return rig.skip(f"courses/ or gps/sim/ not found under {args.data!r}")
    rig.program(args.bin, "moonrunner")

    names = course_names(args.data)
    if args.only:
        names = [n for n in names if n in args.only.split(",")]
    targets = rig.Targets(args.check)
    print(f"{'course':<16}{'fmt':<5}{'median':>7}{'p95':>7}{'n':>6}{'wrong':>6}{'off≠':>6}"
          f"  {'off_course det(time)':<22}{'on_course det(time)':<22}{'finished det(time)':<18}")
    for name in names:
        truth = json.load(open(os.path.join(courses_dir, f"{name}.course.truth.json")))
        detour = any(truth["off_course"])
        for fmt in FORMATS:
            label = f"{name}.{fmt}"
            if not os.path.exists(os.path.join(courses_dir, f"{name}.course.{fmt}")):
                targets.expect(f"{label}: missing", False)
                continue
            s = follow(args.bin, args.data, name, fmt, truth)
            met = verdicts(s, detour)
            problems = [what for what, ok in met if not ok]
            for what, ok in met:
                targets.expect(f"{label}: {what}", ok)
            verdict = f"{targets.word(False)}: {', '.join(problems)}" if problems else targets.word(True)
            print(f"{name:<16}{fmt:<5}{s['median']:7.2f}{s['p95']:7.2f}{s['n']:6d}{s['wrong']:6d}{s['disagree']:6d}"
                  f"  {fmt_events(s['offs'], [a for a, _ in s['periods']]):<22}"
                  f"{fmt_events(s['ons'], [b for _, b in s['periods']]):<22}"
                  f"{fmt_events(s['fins'], s['arrive']):<18}{verdict}")
    print()
    print("targets: median <= 5 m, p95 <= 15 m (on course, after 60 s); 0 s on a wrong lap/leg (> 100 m);")
    print("         0 off_course on exact courses; on a detour one off/on for each time the truth is off, within")
    print("         15 s of its first off second / first second back; course_finished once within 20 s of arriving.")
    print("         Event columns: detected_at")
    print("         relative to the truth's moment (time, back-dated, in brackets); off≠: seconds where")
    print("         off_course disagrees with the truth.")
    return targets.report()


if __name__ == "__main__":
    sys.exit(main())
