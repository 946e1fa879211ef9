"""Heart rate from recorded runs through `moonrunner analyze`, against the trace.

For every run in DATA/hr (`X.hr.csv` with `X.gpsd.json`): `moonrunner
analyze --gps X.gpsd.json --hr X.hr.csv --json`, then the same figures
computed here, independently, from the trace over the moving time analyze
reports (its start, its end and its pauses):

* average heart rate: each reading holds until the next, at most 5 s (the
  issue's limit, after which the heart rate is missing), moving time only,
  readings without a heart rate hold nothing: within 0.5 bpm (target);
* maximum: the highest reading taken while moving: exact (target);
* readings: every row of the trace taken, as a heart rate or as missing
  (samples + missing + rejected = rows in the session): 100 % (target).

The watch's own average and maximum are printed beside them where its
truth file has them: a peer's figure over its own timer time, not a target.
Nothing here is tuned to these files; the rule is the issue's.

    eval_hr.py --bin .build/release [--data ../shared/data] [--check]

--bin is the build folder. The figures go to standard output as JSON, the
table and the misses to standard error. Without the heart-rate recordings it
says so and exits 0 (1 under --check: the figures were not measured).
"""
import argparse
import json
import os
import sys

import rig
import trace_files

WEEKS_1024 = 1024 * 7 * 86400
HOLD = 5.0


def read_trace(path):
    """A heart-rate trace: (time, bpm or None) per row."""
    return [(float(r["t"]), float(r["bpm"]) if r["bpm"] else None) for r in trace_files.read_csv(path)]


def first_fix_time(gpsd_json):
    with open(gpsd_json) as f:
        for line in f:
            o = json.loads(line)
            if o.get("class") == "TPV" and o.get("time"):
                return trace_files.utc(o["time"])
    return None


def moving_overlap(a, b, pauses):
    """Seconds of [a, b] outside every pause."""
    if b <= a:
        return 0.0
    paused = sum(max(0.0, min(b, e) - max(a, s)) for s, e in pauses)
    return max(0.0, b - a - paused)


def independent(rows, start, end, pauses):
    """Time-weighted mean over moving time (a reading holds until the next, at most HOLD s) and the maximum."""
    weighted = covered = 0.0
    top = None
    for i, (t, bpm) in enumerate(rows):
        if bpm is None:
            continue
        if start <= t <= end and not any(s <= t < e for s, e in pauses):
            top = bpm if top is None else max(top, bpm)
        nxt = rows[i + 1][0] if i + 1 < len(rows) else float("inf")
        m = moving_overlap(max(t, start), min(nxt, t + HOLD, end), pauses)
        weighted += bpm * m
        covered += m
    return (weighted / covered if covered else None), top, covered


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    rig.common_args(p)
    a = p.parse_args()
    folder = os.path.join(a.data, "hr")
    if not os.path.isdir(folder):
        print(f"eval_hr: {folder} is absent (the heart-rate recordings)", file=sys.stderr)
        sys.exit(1 if a.check else 0)
    rig.program(a.bin, "moonrunner")
    runs = sorted(n[:-len(".hr.csv")] for n in os.listdir(folder) if n.endswith(".hr.csv"))
    targets = rig.Targets(a.check, stream=sys.stderr)
    out = []
    print(f"{'run':<16}{'moving s':>9}{'avg':>8}{'trace':>8}{'diff':>7}{'max':>5}{'trace':>6}"
          f"{'watch avg/max':>15}{'rows':>7}{'taken':>7}", file=sys.stderr)
    for name in runs:
        trace = os.path.join(folder, f"{name}.hr.csv")
        gpsd = os.path.join(folder, f"{name}.gpsd.json")
        r = rig.analyze(a.bin, "--gps", gpsd, "--hr", trace)
        rows = read_trace(trace)
        # The trace on the analysis clock: gpsd 3.22 moved the log's dates by whole 1024-week periods.
        fix = first_fix_time(gpsd)
        periods = round((fix - rows[0][0]) / WEEKS_1024) if fix else 0
        shift = periods * WEEKS_1024 if fix and abs(fix - rows[0][0] - periods * WEEKS_1024) < 86400 else 0
        rows = [(t + shift, b) for t, b in rows]
        start = next(e["time"] for e in r["events"] if e["event"] == "start")
        end = start + r["elapsed_s"]
        pauses = [(q["start"], q["end"] if q.get("end") is not None else end) for q in r["pauses"]]
        avg, top, covered = independent(rows, start, end, pauses)
        in_session = [b for t, b in rows if start <= t <= end]
        taken = r["hr"]["samples"] + r["hr"]["missing"] + r["hr"]["rejected"]
        truth_path = os.path.join(folder, f"{name}.hr.truth.json")
        truth = json.load(open(truth_path)) if os.path.exists(truth_path) else {}
        figure = {"run": name, "moving_s": round(r["moving_s"], 1), "hr_avg_bpm": r["hr_avg_bpm"],
                  "trace_avg_bpm": round(avg, 2) if avg is not None else None, "hr_max_bpm": r["hr_max_bpm"],
                  "trace_max_bpm": top, "covered_s": round(covered, 1), "rows": len(in_session), "taken": taken,
                  "calories_method": r["calories_method"], "calories_kcal": round(r["calories_kcal"], 1),
                  "watch_avg_bpm": truth.get("watch_avg_heart_rate"), "watch_max_bpm": truth.get("watch_max_heart_rate"),
                  "watch_calories_kcal": truth.get("watch_total_calories")}
        out.append(figure)
        diff = abs(r["hr_avg_bpm"] - avg) if avg is not None and r["hr_avg_bpm"] is not None else float("inf")
        targets.expect(f"{name}: average {r['hr_avg_bpm']} vs {avg} from the trace (> 0.5 bpm)", diff <= 0.5)
        targets.expect(f"{name}: maximum {r['hr_max_bpm']} vs {top} from the trace", r["hr_max_bpm"] == top)
        targets.expect(f"{name}: {taken} readings taken of {len(in_session)} rows", taken == len(in_session))
        watch = f"{truth.get('watch_avg_heart_rate')}/{truth.get('watch_max_heart_rate')}"
        print(f"{name:<16}{r['moving_s']:>9.0f}{r['hr_avg_bpm'] or float('nan'):>8.2f}{avg if avg is not None else float('nan'):>8.2f}{diff:>7.3f}{r['hr_max_bpm']:>5.0f}"
              f"{top:>6.0f}{watch:>15}{len(in_session):>7}{taken:>7}", file=sys.stderr)
    print(json.dumps({"runs": out, "missed": targets.missed}))
    return targets.report()


if __name__ == "__main__":
    sys.exit(main())
