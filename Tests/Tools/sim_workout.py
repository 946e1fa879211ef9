#!/usr/bin/env python3
"""Simulated interval sessions run to a plan, with exact truth: where each step starts and where
the runner was out of the step's target band (the structured workouts' data).

Each scenario is a plan (a FIT workout, written by PyPI fit-tool through make_workout_fit.py), a
runner who follows it (meeting the pace bands, or drifting out of them for a while on purpose),
a route (a park loop, a 400 m track, town streets with traffic lights, a stretch under trees) and
the receiver of the shared `gps/sim` runs (sim_activity.py's error model: correlated wander,
white noise, a first fix far off, multipath outliers, Doppler speed, drift at stops). Files per
scenario, in the shared sims' form where they overlap:

  X.nmea, X.gpsd.json   the receiver's NMEA and what real gpsd 3.22 printed for it (`--gpsd`)
  X.workout.fit         the plan
  X.hr.csv              for the heart-rate scenarios: `t,bpm,rr_ms` at 1 Hz (the shared hr/ form)
  X.truth.json          sim_activity's truth keys, plus `workout`: the steps as run (index, the
                        file's step, round, intensity, how each ends, start and end in seconds from
                        the first fix and in metres of true distance), the lap presses, the
                        out-of-band spans (measure, side, start, end, whether an alert is owed),
                        the traffic-light stops, and `held_out`.

How the runner follows the plan (the same rules as WorkoutRunner): a time step of the effort
counts moving time (0.5 m/s or faster: creeping to a kerb is standing), a rest or recovery counts the clock whatever the runner does; a distance step
counts true distance; an open step ends when the runner presses lap; a heart-rate step when the
true heart rate crosses its level. Speeds change at 1.2 m/s^2 up and 1.8 m/s^2 down; inside a band
the runner wanders by at most 60 % of its half-width around the centre (an Ornstein-Uhlenbeck
wander, 20 s correlation); a drift takes 6 s to reach 3-8 % beyond the band's edge, holds, and
takes 6 s back. Heart rate follows speed (70 + 20 bpm per m/s) with a 25 s rise and 80 s fall.

Truth of the bands: a second is out when the true speed (or heart rate) is outside the band
itself; seconds standing (below 1 m/s) are neither; spans on one side are merged across gaps of
2 s. A span of 30 s or more owes an alert (within 20 s of its start) and, if the runner comes back
inside the same step, a "back on pace" (within 20 s of its end); a shorter one owes nothing and
forbids nothing. Every third scenario is held out (`held_out`), for checking the alert settings
chosen on the others.

    sim_workout.py --out DIR [--gpsd] [--only NAME ...]
    sim_workout.py --list

Deterministic: each scenario from its seed alone. Standard library, fit-tool, gpsfake for --gpsd.
"""
import argparse
import concurrent.futures
import json
import math
import os
import random
import sys

import make_workout_fit
import sim_activity
import trace_files
from workout_scenarios import HR_PROFILE, SCENARIOS, held_out, unroll

DT = sim_activity.DT
ACCEL, BRAKE = 1.2, 1.8
STILL = 1.0  # m/s: below this the runner is standing, not slow
# m/s: moving, for the truth's moving time: creeping the last metre to a kerb at 0.3 m/s is standing
# (no receiver tells it from standing), setting off is moving from the first half step.
MOVING = 0.5
REACT = 4.0  # s: a runner resting until the heart rate is down sets off when the watch says so, not before


# The route: a closed loop the runner goes round, as a polyline of (east, north) metres.

def loop(kind, rng):
    """The loop's vertices and its traffic-light corners (none off the streets)."""
    if kind == "track":
        r, straight = 36.5, 84.39
        pts = [(x, -r) for x in (0, straight)]
        pts += [(straight + r * math.sin(a), -r * math.cos(a)) for a in [i * math.pi / 24 for i in range(1, 24)]]
        pts += [(straight, r), (0, r)]
        pts += [(-r * math.sin(a), r * math.cos(a)) for a in [i * math.pi / 24 for i in range(1, 24)]]
        return pts
    if kind == "park":
        w, h = rng.uniform(320, 420), rng.uniform(140, 220)
        pts, corner = [], 25.0
        for cx, cy, a0 in ((w, 0, -90), (w, h, 0), (0, h, 90), (0, 0, 180)):
            ox = cx - corner if cx else cx + corner
            oy = cy + corner if not cy else cy - corner
            pts += [(ox + corner * math.cos(math.radians(a0 + d)), oy + corner * math.sin(math.radians(a0 + d)))
                    for d in range(0, 91, 15)]
        return pts
    # Town: a block circuit with right-angle corners (the lights are placed by the scenario's stops).
    xs = [0, rng.uniform(180, 240)]
    xs.append(xs[-1] + rng.uniform(150, 220))
    ys = [0, rng.uniform(200, 260), rng.uniform(380, 460)]
    return [(xs[0], ys[0]), (xs[2], ys[0]), (xs[2], ys[1]), (xs[1], ys[1]), (xs[1], ys[2]), (xs[0], ys[2])]


class Route:
    def __init__(self, pts):
        self.pts = pts + [pts[0]]
        self.cum = [0.0]
        for a, b in zip(self.pts, self.pts[1:]):
            self.cum.append(self.cum[-1] + math.dist(a, b))
        self.length = self.cum[-1]
        self.k = 0

    def at(self, s):
        """Position at `s` metres along (round and round; s only grows)."""
        s %= self.length
        if s < self.cum[self.k]:
            self.k = 0
        while self.cum[self.k + 1] < s:
            self.k += 1
        (ax, ay), (bx, by) = self.pts[self.k], self.pts[self.k + 1]
        f = (s - self.cum[self.k]) / max(self.cum[self.k + 1] - self.cum[self.k], 1e-9)
        return ax + f * (bx - ax), ay + f * (by - ay)


# The runner.

class Runner:
    """Follows the plan at DT: the wanted speed of each moment, the kinematics, the truth's clocks."""

    def __init__(self, rng, plan, behaviour):
        self.rng, self.b = rng, behaviour
        self.steps = unroll(plan)
        self.easy = behaviour.get("easy", rng.uniform(2.85, 3.15))
        self.jog = behaviour.get("jog", rng.uniform(2.5, 2.7))
        self.walk = rng.uniform(1.25, 1.45)
        self.wander, self.wander_tau = 0.0, 20.0
        self.stops = sorted(behaviour.get("stops", []))
        self.hr = 75.0

    def base(self, s, wall):
        """The speed a step asks of the runner before drifts: its band's centre, wandering inside."""
        target = s.get("target", {})
        if "speed" in target:
            lo, hi = target["speed"]
            half = (hi - lo) / 2
            return (lo + hi) / 2 + max(-0.6, min(0.6, self.wander)) * half
        if s["intensity"] == "rest":
            return 0.0 if self.b.get("rest", "stand") == "stand" else self.walk
        if s["intensity"] == "recovery":
            return self.jog if self.b.get("rest", "stand") == "stand" else self.walk
        return self.easy * (1 + 0.02 * self.wander)

    def wanted(self, k, s, wall):
        v = self.base(s, wall)
        lo_hi = s.get("target", {}).get("speed")
        for side, after, hold, beyond in self.b.get("drifts", {}).get(k, []):
            if not lo_hi or wall < after:
                continue
            edge = lo_hi[0] * (1 - beyond) if side == "low" else lo_hi[1] * (1 + beyond)
            ramp = min(1.0, (wall - after) / 6, max(0.0, (after + 12 + hold - wall) / 6))
            v += (edge - v) * max(0.0, ramp)
        for at, length, speed in self.b.get("surges", []) + self.b.get("dips", []):
            if at <= wall < at + length:
                v = speed
        return v

    def tick_wander(self):
        a = math.exp(-DT / self.wander_tau)
        self.wander = a * self.wander + math.sqrt(1 - a * a) * 0.5 * self.rng.gauss(0, 1)

    def tick_hr(self, v):
        target = 70 + 20 * v
        tau = 25.0 if target > self.hr else 80.0
        self.hr += (target - self.hr) * (1 - math.exp(-DT / tau))


def simulate(rng, seed, plan, behaviour, start_wait, end_wait):
    """Runs the plan: the 1/DT rows (t, true distance, speed, heart rate), the steps as run with
    their true starts and ends, the lap presses and the traffic-light stops."""
    runner = Runner(rng, plan, behaviour)
    rows = [(k * DT, 0.0, 0.0, runner.hr) for k in range(int(round(start_wait / DT)))]
    t, s, v = start_wait, 0.0, 0.0
    steps, laps, stops = runner.steps, [], []
    k, clock, dist, wall = 0, 0.0, 0.0, 0.0
    next_stop, standing_until, react_until = 0, None, 0.0
    steps[0].update(start_s=t, start_m=0.0)
    while k < len(steps):
        this = steps[k]["step"]
        runner.tick_wander()
        want, braking = runner.wanted(k, this, wall), False
        if t < react_until:
            want = 0.0  # waiting for the watch to say the heart rate is down
        if standing_until is not None:
            want = 0.0
            if t >= standing_until:
                standing_until = None
        elif next_stop < len(runner.stops):
            at, seconds = runner.stops[next_stop]
            if s >= at - 0.5 and v <= 0.35:
                v, want, standing_until = 0.0, 0.0, t + seconds
                stops.append({"at_m": round(s, 1), "start_s": round(t, 2), "end_s": round(t + seconds, 2)})
                next_stop += 1
            elif v * v >= 2 * BRAKE * max(at - s - 0.3, 0.0):
                want, braking = 0.0, True
        v = max(0.0, v + max(-BRAKE * DT, min(ACCEL * DT, want - v)))
        if braking:
            v = max(v, 0.3)  # creep the last metre to the line
        t += DT
        s += v * DT
        wall += DT
        counts = this["intensity"] in ("rest", "recovery") or v >= MOVING
        clock += DT if counts else 0.0
        dist += v * DT
        runner.tick_hr(v)
        rows.append((t, s, v, runner.hr))
        end = step_end(this, clock, dist, wall, t, s, v, runner.hr, behaviour.get("laps", {}).get(k))
        if end is None:
            continue
        t_end, s_end, cause = end
        steps[k].update(end_s=round(t_end, 3), end_m=round(s_end, 2), ended_by=cause)
        if cause == "lap":
            laps.append(round(t_end, 3))
        if cause == "hr":
            react_until = t_end + REACT
        k += 1
        if k < len(steps):
            steps[k].update(start_s=round(t_end, 3), start_m=round(s_end, 2))
        wall, dist = t - t_end, s - s_end
        clock = wall
    # A runner stops when the device says the workout is done, not on the second of their own
    # count: they run on 10-25 s and then brake, so that an engine whose last step began a few
    # seconds after the truth's can still end it (its own rng: the receiver's noise is unchanged).
    run_on = random.Random(f"{seed}-finish").uniform(10.0, 25.0)
    for _ in range(int(round(run_on / DT))):
        t += DT
        s += v * DT
        rows.append((t, s, v, runner.hr))
        runner.tick_hr(v)
    while v > 0:
        v = max(0.0, v - BRAKE * DT)
        t += DT
        s += v * DT
        rows.append((t, s, v, runner.hr))
        runner.tick_hr(v)
    for _ in range(int(round(end_wait / DT))):
        t += DT
        rows.append((t, s, 0.0, runner.hr))
        runner.tick_hr(0.0)
    return rows, steps, laps, stops


def step_end(this, clock, dist, wall, t, s, v, hr, lap_after):
    """(time, true distance, cause) where the step ended in this tick, or None."""
    d = this["duration"]
    if "time" in d and clock >= d["time"]:
        over = clock - d["time"]
        return t - over, s - v * over, "time"
    if "distance" in d and dist >= d["distance"]:
        over = dist - d["distance"]
        return t - over / max(v, 1e-6), s - over, "distance"
    if "open" in d and lap_after is not None and wall >= lap_after:
        return t, s, "lap"
    if "hr_below" in d and hr < d["hr_below"]:
        return t, s, "hr"
    return None


def hr_band(target):
    """A step's heart-rate band, bpm, in the wearer's numbers (HR_PROFILE), as WorkoutPlan resolves it."""
    if "hr_zone" in target:
        mx, rest = HR_PROFILE["max_bpm"], HR_PROFILE["resting_bpm"]
        floors = [mx * p / 100 for p in (60, 70, 80, 90)]
        bounds = [min(rest, floors[0])] + floors + [max(mx, floors[3])]
        return bounds[target["hr_zone"] - 1], bounds[target["hr_zone"]]
    return tuple(target["hr"])


def out_of_band(rows, steps):
    """The spans (whole seconds) where the true measure was outside its step's band."""
    per = int(round(1 / DT))
    spans, open_span = [], None
    for sec in range(int(rows[-1][0])):
        _, _, v, hr = rows[min(sec * per, len(rows) - 1)]
        step = next((x for x in steps if x["start_s"] <= sec < x.get("end_s", 1e12)), None)
        side = None
        if step and step["step"].get("target") and step["step"]["intensity"] != "rest":
            target = step["step"]["target"]
            if "speed" in target and v >= STILL:
                lo, hi = target["speed"]
                side = ("pace", "low" if v < lo else "high" if v > hi else None)
            elif "speed" not in target:
                lo, hi = hr_band(target)
                side = ("hr", "low" if hr < lo else "high" if hr > hi else None)
        key = (step["index"], side) if step and side and side[1] else None
        if open_span and key == open_span["key"] and sec - open_span["last"] <= 3:
            open_span["last"] = sec
        elif key:
            if open_span:
                spans.append(open_span)
            open_span = {"key": key, "first": sec, "last": sec}
    if open_span:
        spans.append(open_span)
    out = []
    for sp in spans:
        (index, (measure, side)) = sp["key"]
        step_end_s = steps[index]["end_s"]
        length = sp["last"] + 1 - sp["first"]
        owes = length >= 30
        out.append({"index": index, "measure": measure, "side": side, "start_s": sp["first"],
                    "end_s": sp["last"] + 1, "duration_s": length, "owes_alert": owes,
                    "owes_ok": owes and step_end_s - (sp["last"] + 1) >= 10})
    return out


def scenario(name, seed, route_kind, plan, behaviour):
    """The NMEA lines, the truth and the heart-rate rows of one scenario."""
    rng = random.Random(seed)
    params = {"kind": "run", "seed": seed, "lat0": round(rng.uniform(47.2, 52.4), 4),
              "lon0": round(rng.uniform(-1.5, 11.0), 4), "alt0": round(rng.uniform(20, 500)), "geoid": 48.0,
              "uere": round(rng.uniform(3.6, 4.4), 1), "start": "2025-09-16T17:30:00",
              "start_wait": rng.randint(20, 40), "end_wait": rng.randint(5, 10), "prefix": rng.randint(25, 35)}
    route = Route(loop(route_kind, rng))
    rows, steps, laps, stops = simulate(rng, seed, plan, behaviour, params["start_wait"], params["end_wait"])
    duration = rows[-1][0]
    params["canopy"] = [(round(a * duration), round(b * duration)) for a, b in behaviour.get("canopy", [])]
    path = []
    for t, s, v, _ in rows:
        e, n = route.at(s)
        path.append((t, e, n, params["alt0"] + 3 * math.sin(s / 300), v, s))
    lines, positions, events = sim_activity.receiver(rng, path, [], params)
    hr_rows = [(sec, round(rows[min(int(sec / DT), len(rows) - 1)][3] + rng.gauss(0, 1.5)))
               for sec in range(int(duration) + 1)] if behaviour.get("hr") else None
    moving = sum(DT for _, _, v, _ in rows if v >= MOVING)
    intervals = []
    for t, _, v, _ in rows:
        state = "moving" if v >= MOVING else "stationary"
        if intervals and intervals[-1]["state"] != state:
            intervals[-1]["end_s"] = round(t, 3)
        if not intervals or intervals[-1]["state"] != state:
            intervals.append({"state": state, "start_s": round(t, 3)})
    intervals[-1]["end_s"] = round(rows[-1][0], 3)
    t0 = trace_files.utc(params["start"] + "Z")
    workout = {"plan": {"name": name, "sport": behaviour.get("sport", "running"), "steps": plan},
               "steps": [{k: (v if k != "step" else None) for k, v in x.items() if k != "step"}
                         | {"intensity": x["step"]["intensity"], "duration": x["step"]["duration"],
                            "target": x["step"].get("target")} for x in steps],
               "laps_s": laps, "stops": stops, "out_of_band": out_of_band(rows, steps),
               "session_start_s": params["start_wait"], "hr_profile": HR_PROFILE if behaviour.get("hr") else None}
    truth = {"scenario": name, "kind": "workout", "seed": seed, "params": params, "t0_utc": params["start"] + "Z",
             "t0_unix": t0, "first_fix_utc": params["start"] + "Z", "prefix_nofix_epochs": params["prefix"],
             "elapsed_s": float(positions["t_s"][-1]), "n_fix_epochs": len(positions["t_s"]),
             "true_distance_m": round(rows[-1][1], 2), "true_moving_time_s": round(moving, 2), "intervals": intervals,
             "held_out": held_out(name), "route": route_kind, "events": events, "workout": workout,
             "notes": "times are seconds from the first fix (t=0 == first_fix_utc); made by "
                      "Tests/Tools/sim_workout.py from its seed alone",
             "positions": positions}
    return lines, truth, hr_rows


def write(spec, out, gpsd):
    name = spec[0]
    lines, truth, hr_rows = scenario(*spec)
    os.makedirs(out, exist_ok=True)
    base = os.path.join(out, name)
    with open(base + ".nmea", "w") as f:
        f.write("\r\n".join(lines) + "\r\n")
    with open(base + ".truth.json", "w") as f:
        json.dump(truth, f)
    make_workout_fit.write(truth["workout"]["plan"], base + ".workout.fit")
    if hr_rows:
        with open(base + ".hr.csv", "w") as f:
            f.write("t,bpm,rr_ms\n")
            f.writelines(f"{truth['t0_unix'] + sec:.1f},{bpm},\n" for sec, bpm in hr_rows)
    if gpsd:
        sim_activity.through_gpsd(base + ".nmea", base + ".gpsd.json")
    return truth


def write_all(specs, out, gpsd, jobs=8):
    """Writes the scenarios, `jobs` at a time: each gpsfake paces its log on a clock (2 ms a
    sentence) and uses little CPU, so they overlap well beyond the cores. Their truths, in order."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(lambda spec: write(spec, out, gpsd), specs))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", help="folder for the scenarios (not ../shared/data: that is read-only reference data)")
    p.add_argument("--gpsd", action="store_true", help="also replay each NMEA log through gpsd (gpsfake) into X.gpsd.json")
    p.add_argument("--only", nargs="*", help="these scenarios only")
    p.add_argument("--list", action="store_true", help="print the scenarios and which are held out")
    a = p.parse_args()
    if a.list:
        for spec in SCENARIOS:
            print(f"{spec[0]:18} seed {spec[1]}  {spec[2]:6} {'held out' if held_out(spec[0]) else ''}")
        return
    if not a.out:
        p.error("give --out DIR (or --list)")
    for t in write_all([spec for spec in SCENARIOS if not a.only or spec[0] in a.only], a.out, a.gpsd):
        w = t["workout"]
        owed = sum(s["owes_alert"] for s in w["out_of_band"])
        print(f"{t['scenario']}: {len(w['steps'])} steps, {t['true_distance_m']:.0f} m in {t['elapsed_s']:.0f} s, "
              f"{owed} alerts owed{', held out' if t['held_out'] else ''}", file=sys.stderr)


if __name__ == "__main__":
    main()
