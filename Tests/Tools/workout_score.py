"""Scoring a workout's events against a simulated session's truth (eval_workout.py's figures; its
docstring says what each one means and why): the step boundaries judged locally against the
truth, and the alerts against the out-of-band spans.
"""

ALERT_LIMIT, OK_LIMIT, TIME_LIMIT = 20.0, 20.0, 1.0
# A distance step may end this long after the runner stopped at its mark: auto-pause is decided
# 3-8 s after a stop and the step's end is then placed at the stop.
STOOD_LIMIT = 3.0
# No alert in a step's first seconds (WorkoutConfig's stepGrace and hrStepGrace): a span owes one
# from their end on.
GRACE = {"pace": 10.0, "hr": 60.0, "cadence": 10.0}


def true_distance(truth):
    """Linear interpolation of the true distance (m) at a time (s from the first fix)."""
    ts, ds = truth["positions"]["t_s"], truth["positions"]["dist_m"]

    def at(t):
        if t <= ts[0]:
            return ds[0]
        i = min(int(t - ts[0]), len(ts) - 2)
        while i + 1 < len(ts) - 1 and ts[i + 1] < t:
            i += 1
        f = (t - ts[i]) / max(ts[i + 1] - ts[i], 1e-9)
        return ds[i] + max(0.0, min(1.0, f)) * (ds[i + 1] - ds[i])
    return at


def standing_for(truth, t):
    """How long the true runner had been standing at `t` (0 when moving)."""
    for iv in truth["intervals"]:
        if iv["start_s"] <= t < iv["end_s"]:
            return t - iv["start_s"] if iv["state"] == "stationary" else 0.0
    return 0.0


def expected_time_end(truth, s, begin):
    """Where a time step begun at the runner's `begin` should end by the truth: a break runs on the
    clock, so its time after `begin`; an effort step runs on moving time, so where the true runner
    has moved its time after `begin` (the truth's moving intervals, to the simulation's 0.05 s)."""
    left = s["duration"]["time"]
    if s["intensity"] in ("rest", "recovery"):
        return begin + left
    for iv in truth["intervals"]:
        if iv["state"] != "moving" or iv["end_s"] <= begin:
            continue
        a = max(iv["start_s"], begin)
        if iv["end_s"] - a >= left:
            return a + left
        left -= iv["end_s"] - a
    # The simulated runner stops where the truth ends the last step, so a step begun a fraction of
    # a second after the truth's own start runs out of moving time: it is due that much after the
    # last moving second (without this, every final time step scored "off by -inf").
    last = max((iv["end_s"] for iv in truth["intervals"] if iv["state"] == "moving"), default=begin)
    return max(begin, last) + left


def score_steps(truth, events, t0):
    """Per boundary: the error against its limit; and the worst absolute error of a start."""
    w = truth["workout"]
    steps = w["steps"]
    starts = {e["index"]: e["time"] - t0 for e in events if e["event"] == "workout_step"}
    done = [e["time"] - t0 for e in events if e["event"] == "workout_done"]
    dist = true_distance(truth)
    rows, worst_abs = [], 0.0
    for k, s in enumerate(steps):
        begin = starts.get(k)
        end = starts.get(k + 1) if k + 1 < len(steps) else (done[0] if done else None)
        if begin is not None:
            worst_abs = max(worst_abs, abs(begin - s["start_s"]))
        row = {"index": k, "kind": next(iter(s["duration"])), "ok": False, "error": None, "limit": None}
        rows.append(row)
        if begin is None or end is None:
            continue
        kind = row["kind"]
        if kind == "time":
            row["limit"] = TIME_LIMIT
            row["error"] = end - expected_time_end(truth, s, begin)
        elif kind == "distance":
            d = s["duration"]["distance"]
            row["limit"] = max(5.0, 0.01 * d)
            row["error"] = (dist(end) - dist(begin)) - d
            # Standing at the mark adds no distance: a step that ends while the runner has been
            # standing for more than STOOD_LIMIT is late in time, not in metres.
            row["late_s"] = standing_for(truth, end)
            row["time_ok"] = row["late_s"] <= STOOD_LIMIT
        elif kind == "open":
            row["limit"] = 0.0
            row["error"] = end - s["end_s"]
        else:
            row["error"] = end - s["end_s"]
        row["ok"] = (row["limit"] is None or abs(row["error"]) <= row["limit"] + 1e-6) and row.get("time_ok", True)
    return rows, worst_abs


def standing(alerts, oks, side, index, t):
    """Whether an alert of `side` given in step `index` before `t` still stands there (no target_ok
    since; a new step starts with none)."""
    given = [a["t"] for a in alerts if a["event"] == side and a["index"] == index and a["t"] < t]
    return bool(given) and not any(given[-1] < o["t"] < t for o in oks)


def score_alerts(truth, events, t0):
    """Owed alerts and oks matched, their latencies, the false and the tolerated ones. A span owes
    its alert from the end of the step's grace, if it is still 30 s long from there; an alert still
    standing from an earlier span of the same side (no target_ok between) answers it at once. A
    back-in-range is owed when the runner then stays inside for 10 s (before the next span or the
    step's end): a return of a few seconds between two spans is not one."""
    spans = sorted(truth["workout"]["out_of_band"], key=lambda sp: sp["start_s"])
    steps = truth["workout"]["steps"]
    alerts = [dict(e, t=e["time"] - t0) for e in events if e["event"] in ("target_low", "target_high")]
    oks = [dict(e, t=e["time"] - t0) for e in events if e["event"] == "target_ok"]
    out = {"owed": 0, "raised": 0, "late": 0, "missed": 0, "ok_owed": 0, "ok_raised": 0, "ok_missed": 0,
           "false": 0, "tolerated": 0, "lag": 0, "latency": [], "ok_latency": [], "false_at": [], "lag_at": []}
    for k, sp in enumerate(spans):
        side = "target_" + sp["side"]
        start = max(sp["start_s"], steps[sp["index"]]["start_s"] + GRACE[sp["measure"]])
        if not sp["owes_alert"] or sp["end_s"] - start < 30:
            continue
        out["owed"] += 1
        inside = [a for a in alerts if a["event"] == side and a["index"] == sp["index"]
                  and sp["start_s"] - 2 <= a["t"] <= sp["end_s"] + 5]
        if standing(alerts, oks, side, sp["index"], start):
            latency, given = 0.0, start
        elif inside:
            latency, given = inside[0]["t"] - start, inside[0]["t"]
        else:
            out["missed"] += 1
            continue
        out["latency"].append(latency)
        out["raised" if latency <= ALERT_LIMIT else "late"] += 1
        following = [x["start_s"] for x in spans[k + 1:] if x["index"] == sp["index"]]
        back_for = min(following + [steps[sp["index"]]["end_s"]]) - sp["end_s"]
        if back_for < 10:
            continue
        out["ok_owed"] += 1
        back = [o for o in oks if o["index"] == sp["index"] and o["t"] >= given and o["t"] >= sp["end_s"] - 2]
        if back and back[0]["t"] - sp["end_s"] <= OK_LIMIT:
            out["ok_raised"] += 1
            out["ok_latency"].append(back[0]["t"] - sp["end_s"])
        else:
            out["ok_missed"] += 1
    for a in alerts:
        home = [sp for sp in spans if a["event"] == "target_" + sp["side"] and a["index"] == sp["index"]
                and sp["start_s"] - 2 <= a["t"] <= sp["end_s"] + 5]
        step = steps[a["index"]] if a["index"] < len(steps) else None
        if not home and step and not step["start_s"] <= a["t"] <= step.get("end_s", float("inf")):
            # The simulated runner runs the plan by its own exact count, not by the engine's: when the
            # engine's step ends a few seconds after the runner's own (their small errors add up over
            # back-to-back distance steps), the runner is already at the next step's pace. A runner
            # with the device would not be; such an alert is counted apart, not judged.
            out["lag"] += 1
            out["lag_at"].append(round(a["t"], 1))
        elif not home:
            out["false"] += 1
            out["false_at"].append(round(a["t"], 1))
        elif not any(sp["owes_alert"] for sp in home):
            out["tolerated"] += 1
    return out


def score(truth, events):
    t0 = truth["t0_unix"]
    steps, worst_abs = score_steps(truth, events, t0)
    alerts = score_alerts(truth, events, t0)
    judged = [r for r in steps if r["limit"] is not None]
    missed = [f"step {r['index'] + 1} ({r['kind']}) off by {r['error'] if r['error'] is None else round(r['error'], 2)}"
              + (f", after {r['late_s']:.1f} s standing" if r.get("late_s") else "") for r in judged if not r["ok"]]
    missed += [f"{alerts['missed']} alert(s) owed not raised"] if alerts["missed"] else []
    missed += [f"{alerts['late']} alert(s) later than {ALERT_LIMIT:.0f} s"] if alerts["late"] else []
    missed += [f"{alerts['ok_missed']} back-in-range missing or late"] if alerts["ok_missed"] else []
    missed += [f"{alerts['false']} false alert(s) at {alerts['false_at']} s"] if alerts["false"] else []
    worst = lambda kind: max((abs(r["error"]) for r in judged if r["kind"] == kind and r["error"] is not None), default=None)
    return {"steps": len(steps), "judged": len(judged), "within": sum(r["ok"] for r in judged),
            "worst_time_s": worst("time"), "worst_distance_m": worst("distance"), "worst_abs_s": worst_abs,
            "alerts": alerts, "missed": missed}
