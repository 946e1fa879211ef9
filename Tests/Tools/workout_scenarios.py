"""The simulated interval sessions' plans and runners, one table (sim_workout.py makes the sessions,
eval_workout.py scores them): each plan in make_workout_fit's JSON, built with the small helpers
below, the runner's behaviour beside it, and which third is held out for cross-validation.
"""

# The plan, in make_workout_fit's JSON.

def band(fast, slow, unit=1000.0):
    """A pace band "3:50"-"4:00" per km (or per `unit` metres) as its speed range."""
    def secs(p):
        m, s = p.split(":")
        return int(m) * 60 + int(s)
    return {"speed": [unit / secs(slow), unit / secs(fast)]}


def step(duration, intensity="active", target=None, name=None):
    s = {"duration": duration, "intensity": intensity}
    if target:
        s["target"] = target
    if name:
        s["name"] = name
    return s


def T(seconds, intensity="active", target=None, name=None):
    return step({"time": seconds}, intensity, target, name)


def D(metres, intensity="active", target=None, name=None):
    return step({"distance": metres}, intensity, target, name)


def LAP(intensity="active", target=None):
    return step({"open": True}, intensity, target)


def HR_BELOW(bpm, intensity="rest"):
    return step({"hr_below": bpm}, intensity)


def R(first, times):
    return {"repeat_from": first, "times": times}


def unroll(steps):
    """The steps as run: (index, the file's step, round of the innermost repeat, the step)."""
    inner = [None] * len(steps)
    for r, s in enumerate(steps):
        if "repeat_from" in s:
            for k in range(s["repeat_from"], r):
                if inner[k] is None:
                    inner[k] = r
    done, out, k = [0] * len(steps), [], 0
    while k < len(steps):
        s = steps[k]
        if "repeat_from" in s:
            done[k] += 1
            if done[k] < s["times"]:
                k = s["repeat_from"]
            else:
                done[k], k = 0, k + 1
            continue
        out.append({"index": len(out), "wkt_step_index": k,
                    "repeat": done[inner[k]] + 1 if inner[k] is not None else 1, "step": s})
        k += 1
    return out


MILE = 1609.344
# name, seed, route, plan steps, behaviour. Behaviour: easy/jog/walk speeds (m/s), rest ("stand" or
# "walk"), drifts {index as run: [(side, after_s, hold_s, beyond)]}, laps {index: after_s},
# stops [(metres of true distance, seconds)], canopy [(from, to) as fractions of the run], hr.
SCENARIOS = [
    ("classic_800s", 4101, "track",
     [T(900, "warmup"), D(800, "interval", band("3:50", "4:00")), T(90, "rest"), R(1, 6), T(600, "cooldown")],
     {}),
    ("k_repeats_walk", 4102, "park",
     [T(600, "warmup"), D(1000, "interval", band("4:10", "4:25")), T(120, "recovery"), R(1, 5), T(600, "cooldown")],
     {"rest": "walk", "drifts": {7: [("low", 60, 45, 0.05)]}}),
    ("time_intervals", 4103, "park",
     [T(720, "warmup"), T(120, "interval", band("3:45", "3:55")), T(60, "recovery", band("5:30", "6:30")), R(1, 8),
      T(600, "cooldown")],
     {"drifts": {3: [("high", 25, 40, 0.06)], 11: [("low", 30, 50, 0.04)]}}),
    ("pyramid", 4104, "track",
     [T(600, "warmup"), D(400, "interval", band("3:35", "3:45")), T(90, "rest"), D(800, "interval", band("3:45", "3:55")),
      T(90, "rest"), D(1200, "interval", band("3:55", "4:05")), T(90, "rest"), D(800, "interval", band("3:45", "3:55")),
      T(90, "rest"), D(400, "interval", band("3:35", "3:45")), T(600, "cooldown")],
     {"drifts": {5: [("low", 210, 60, 0.05)]}}),
    ("tempo_urban", 4105, "urban",
     [D(2000, "warmup"), T(1200, "active", band("4:20", "4:35"), "Tempo"), T(600, "cooldown")],
     {"stops": [(650, 25), (1500, 40), (3900, 30), (7100, 35)], "drifts": {1: [("high", 400, 45, 0.05)]}}),
    ("trees_tempo", 4106, "park",
     [T(900, "warmup"), T(480, "active", band("4:30", "4:45")), T(120, "rest"), R(1, 3), T(600, "cooldown")],
     {"canopy": [(0.25, 0.75)]}),
    ("nested_short", 4107, "park",
     [T(600, "warmup"), D(300, "interval", band("3:30", "3:40")), D(100, "rest"), R(1, 3), T(180, "rest"), R(1, 2),
      T(600, "cooldown")],
     {"rest": "walk"}),
    ("open_laps", 4108, "park",
     [LAP("warmup"), D(1000, "interval", band("4:00", "4:10")), LAP("rest"), R(1, 4), LAP("cooldown")],
     {"laps": {0: 800, 2: 130, 4: 95, 6: 140, 8: 110, 9: 500}, "drifts": {5: [("high", 50, 35, 0.05)]}}),
    ("fartlek", 4109, "park",
     [T(600, "warmup"), T(60, "interval", band("3:40", "3:55")), T(60, "recovery"), R(1, 10), T(600, "cooldown")],
     {"drifts": {9: [("high", 15, 40, 0.05)], 15: [("low", 12, 45, 0.05)]}}),
    ("long_tempo_fade", 4110, "park",
     [T(600, "warmup"), D(3000, "active", band("4:00", "4:10")), T(180, "rest"), R(1, 2), T(600, "cooldown")],
     {"drifts": {3: [("low", 200, 90, 0.05), ("low", 640, 200, 0.06)]}}),
    ("mile_repeats", 4111, "park",
     [D(MILE, "warmup"), D(MILE, "interval", band("6:20", "6:35", MILE)), T(180, "rest"), R(1, 4), D(MILE, "cooldown")],
     {"drifts": {5: [("low", 120, 60, 0.03)]}, "canopy": [(0.1, 0.3)]}),
    ("urban_400s", 4112, "urban",
     [D(1500, "warmup"), D(400, "interval", band("3:40", "3:50")), D(200, "recovery", band("5:30", "6:30")), R(1, 6),
      T(720, "cooldown")],
     {"stops": [(400, 30), (1150, 45), (4600, 30), (5500, 25)]}),
    ("progression", 4113, "park",
     [T(300, "active", band("5:00", "5:15")), T(300, "active", band("4:30", "4:45")), T(300, "active", band("4:00", "4:15")),
      R(0, 3)],
     {"drifts": {1: [("low", 12, 40, 0.04)], 4: [("low", 15, 35, 0.05)], 8: [("high", 120, 60, 0.04)]}}),
    ("walk_intervals", 4114, "park",
     [T(300, "warmup"), T(180, "interval", band("8:00", "8:45")), T(120, "recovery", band("10:00", "11:00")), R(1, 6),
      T(300, "cooldown")],
     {"easy": 1.6, "jog": 1.55, "sport": "walking", "drifts": {5: [("low", 40, 60, 0.06)]}}),
    ("hr_recovery", 4115, "track",
     [T(720, "warmup"), D(1000, "interval", band("3:55", "4:05")), HR_BELOW(125), R(1, 5), T(600, "cooldown")],
     {"hr": True}),
    ("hr_zone_run", 4116, "park",
     [T(2400, "active", {"hr_zone": 2}, "Aerobic")],
     {"hr": True, "easy": 2.9, "surges": [(600, 180, 3.45), (1500, 150, 3.4)], "dips": [(2000, 180, 1.9)]}),
]
HR_PROFILE = {"max_bpm": 190, "resting_bpm": 50}


def held_out(name):
    """Every third scenario is kept for checking what was chosen on the others."""
    return [s[0] for s in SCENARIOS].index(name) % 3 == 2
