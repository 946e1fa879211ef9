#!/usr/bin/env python3
"""Compose an IMU trace along the moving and stationary intervals of a GPS scenario.

Real IMU segments from labelled step traces (moving intervals) and zero-step
traces (stationary intervals) are laid end to end on the scenario's clock, so
that `moonrunner analyze --imu OUT.csv --gps X.gpsd.json` exercises the fused
core on real sensor data. Each piece is rotated so that its mean acceleration
(gravity) points along +z, which keeps the seams between different recordings
from looking like a jolt. The step instants that fall inside the used windows
are written to a truth sidecar, on the output clock.

Usage:
  compose_imu.py --truth X.truth.json --moving DIR [DIR...] --still DIR [DIR...]
                 --out OUT.csv[.gz] [--truth-out OUT.truth.json] [--rate 100] [--seed 1]
  compose_imu.py --intervals '[{"state":"stationary","start_s":0,"end_s":20}, ...]' --t0 0 ...

Intervals are seconds from the scenario's first fix; `t` in the output is
UNIX seconds (t0 + offset), the clock of the scenario's gpsd JSON, unless
--t0 is given. Only the standard library is used.
"""
import argparse
import glob
import json
import math
import os
import random
import sys

import rig
import trace_files


class Pool:
    """Traces to draw segments from; moving pools only use their walking part."""

    def __init__(self, dirs, moving):
        self.items = []
        for d in dirs:
            for csv_path in sorted(glob.glob(os.path.join(d, "*.csv.gz")) + glob.glob(os.path.join(d, "*.csv"))):
                if csv_path.endswith(".steps.csv"):
                    continue
                base = csv_path[:-7] if csv_path.endswith(".csv.gz") else csv_path[:-4]
                steps = trace_files.read_steps(base + ".steps.csv")
                if moving and len(steps) < 10:
                    continue
                self.items.append((csv_path, steps))
        if not self.items:
            sys.exit(f"compose_imu: no usable traces in {dirs}")
        self.cache = {}

    def load(self, path):
        if path not in self.cache:
            self.cache[path] = trace_files.read_imu(path)
        return self.cache[path]


def gravity_rotation(rows):
    """3x3 rotation taking the mean acceleration direction to +z."""
    n = len(rows)
    mx = sum(r[0] for r in rows) / n
    my = sum(r[1] for r in rows) / n
    mz = sum(r[2] for r in rows) / n
    norm = math.sqrt(mx * mx + my * my + mz * mz) or 1.0
    a = (mx / norm, my / norm, mz / norm)
    b = (0.0, 0.0, 1.0)
    v = (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])
    c = a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
    if c < -0.999999:
        return ((1, 0, 0), (0, -1, 0), (0, 0, -1))
    k = 1.0 / (1.0 + c)
    vx = ((0, -v[2], v[1]), (v[2], 0, -v[0]), (-v[1], v[0], 0))
    vx2 = [[sum(vx[i][m] * vx[m][j] for m in range(3)) for j in range(3)] for i in range(3)]
    return tuple(tuple((1 if i == j else 0) + vx[i][j] + k * vx2[i][j] for j in range(3)) for i in range(3))


def interpolate(ts, rows, t):
    """Linear interpolation of rows at time t (ts sorted)."""
    lo, hi = 0, len(ts) - 1
    if t <= ts[0]:
        return rows[0]
    if t >= ts[hi]:
        return rows[hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ts[mid] <= t:
            lo = mid
        else:
            hi = mid
    w = (t - ts[lo]) / (ts[hi] - ts[lo])
    return tuple(rows[lo][i] + w * (rows[hi][i] - rows[lo][i]) for i in range(3))


# A moving piece is walking throughout: where the source's walker paused (steps more than 2 s apart,
# 3-5 s in five of the step traces) the piece would be a stop inside a moving interval of the truth.
MAX_STEP_GAP = 2.0


def max_step_gap(steps, a, b):
    """The longest time without a step in [a, b], the window's ends included."""
    inside = [s for s in steps if a <= s <= b]
    marks = [a] + inside + [b]
    return max(y - x for x, y in zip(marks, marks[1:]))


def frange(a, b, step):
    while a < b - 1e-9:
        yield a
        a += step


def compose(intervals, moving, still, rate, rng, grid=False):
    """Yields (offset_s, ax, ay, az) and collects step offsets. With `grid`, every
    piece is a whole number of samples long, so that the output is sampled
    uniformly (a sensor's clock) when the interval bounds are on the grid."""
    samples, steps = [], []
    dt = 1.0 / rate
    for iv in intervals:
        start, end = float(iv["start_s"]), float(iv["end_s"])
        pool = moving if iv["state"] == "moving" else still
        t = start
        while t < end - 1e-9:
            path, truth = rng.choice(pool.items)
            ts, rows = pool.load(path)
            if truth:
                lo, hi = truth[0] - 0.3, truth[-1] + 0.3
            else:
                lo, hi = ts[0], ts[-1]
            span = hi - lo
            need = end - t
            if span <= 2:
                continue
            length = min(need, span)
            if grid:
                length = max(1, math.floor(length * rate + 1e-6)) / rate
            src0 = lo + rng.uniform(0, span - length) if span > length else lo
            if not truth and any(trace_files.walking_like(ts, rows, w, min(w + 10, src0 + length))
                                 for w in frange(src0, src0 + length, 10)):
                continue
            if truth and max_step_gap(truth, src0, src0 + length) > MAX_STEP_GAP:
                continue
            window = [r for tt, r in zip(ts, rows) if src0 <= tt <= src0 + length] or rows
            rot = gravity_rotation(window)
            n = int(math.ceil((min(end, t + length) - t) / dt - 1e-9))
            for i in range(n):
                out_t = t + i * dt
                if out_t >= end - 1e-9:
                    break
                a = interpolate(ts, rows, src0 + (out_t - t))
                samples.append((out_t, *(sum(rot[r][c] * a[c] for c in range(3)) for r in range(3))))
            for s in truth:
                if src0 <= s < src0 + length and t + (s - src0) < end:
                    steps.append(t + (s - src0))
            t += length
    return samples, steps


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--truth", help="scenario X.truth.json (intervals and first_fix_utc)")
    p.add_argument("--intervals", help="JSON list of {state, start_s, end_s} instead of --truth")
    p.add_argument("--t0", type=float, help="UNIX time of offset 0 (default: the scenario's first fix)")
    p.add_argument("--moving", nargs="+", required=True, help="folders of traces with .steps.csv")
    p.add_argument("--still", nargs="+", required=True, help="folders of zero-step traces")
    p.add_argument("--rate", type=float, default=100.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--decimals", type=int, default=5)
    p.add_argument("--out", required=True)
    p.add_argument("--truth-out")
    p.add_argument("--grid", action="store_true",
                   help="pieces of whole samples: one uniform sample clock (give interval bounds on it)")
    a = p.parse_args()

    if a.truth:
        truth = json.load(open(a.truth))
        intervals = truth["intervals"]
        t0 = a.t0 if a.t0 is not None else int(trace_files.utc(truth["first_fix_utc"]))
    elif a.intervals:
        intervals = json.loads(a.intervals)
        t0 = a.t0 or 0.0
    else:
        sys.exit("compose_imu: give --truth or --intervals")

    rng = random.Random(a.seed)
    samples, steps = compose(intervals, Pool(a.moving, True), Pool(a.still, False), a.rate, rng, a.grid)
    fmt = "%.3f," + ",".join([f"%.{a.decimals}f"] * 3) + "\n"
    with trace_files.open_text(a.out, "wt") as f:
        f.write("t,ax,ay,az\n")
        for s in samples:
            f.write(fmt % (t0 + s[0], s[1], s[2], s[3]))
    if a.truth_out:
        moving_s = sum(float(i["end_s"]) - float(i["start_s"]) for i in intervals if i["state"] == "moving")
        json.dump({"t0": t0, "rate_hz": a.rate, "steps": len(steps), "step_times": [round(t0 + s, 3) for s in steps],
                   "intervals": intervals, "moving_s": moving_s, "seed": a.seed,
                   "sources": {"moving": a.moving, "still": a.still}}, open(a.truth_out, "w"), indent=1)
    print(f"compose_imu: {len(samples)} samples, {len(steps)} steps -> {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
