#!/usr/bin/env python3
"""FIT workout files written by PyPI `fit-tool`, an encoder that is not ours, from a small JSON plan.

The workout tests (Tests/MoonRunnerExportTests/WorkoutFileTests.swift) read what this writes, and
sim_workout.py writes each simulated session's plan with it. Values go in as FIT's raw fields, so
that the scales are stated here once (Garmin's FIT profile, `workout_step`):

  duration: {"time": s} (duration_value ms), {"distance": m} (cm), {"open": true},
            {"hr_below": bpm} / {"hr_above": bpm} (workout_hr: bpm + 100),
            {"hr_below_pct": p} / {"hr_above_pct": p} (workout_hr: 0-100 % of the maximum),
            {"calories": kcal}, {"power_above": W} (refused by the reader), {"hr_below": null} (no value)
  target:   {"speed": [lo, hi]} m/s (mm/s), {"hr": [lo, hi]} bpm, {"hr_pct": [lo, hi]}, {"hr_zone": z},
            {"cadence": [lo, hi]} per foot (rpm, as FIT records carry running cadence),
            {"speed_zone": z}, {"power_zone": z}; none: open
  repeat:   {"repeat_from": k, "times": n} (repeat_until_steps_cmplt: duration_step, repeat_steps)
  step:     {"name", "notes", "intensity": warmup|active|interval|rest|recovery|cooldown|other, "duration", "target"}
  plan:     {"name", "sport": running|walking|cycling|hiking|generic, "sub_sport", "notes", "file_type": workout|course|..., "steps"}

    make_workout_fit.py PLAN.json OUT.fit [PLAN.json OUT.fit ...]
"""
import datetime
import json
import sys

from fit_tool.fit_file_builder import FitFileBuilder
from fit_tool.profile.messages.file_id_message import FileIdMessage
from fit_tool.profile.messages.workout_message import WorkoutMessage
from fit_tool.profile.messages.workout_step_message import WorkoutStepMessage
from fit_tool.profile.profile_type import FileType, Intensity, Manufacturer, Sport, SubSport

DURATIONS = {"time": 0, "distance": 1, "hr_below": 2, "hr_above": 3, "calories": 4, "open": 5,
             "hr_below_pct": 2, "hr_above_pct": 3, "power_above": 15}
TARGETS = {"speed": 0, "hr": 1, "hr_pct": 1, "hr_zone": 1, "cadence": 3, "speed_zone": 0, "power_zone": 4}


def duration_value(kind, value):
    """The raw duration_value of a duration."""
    if value is None:
        return None
    return {"time": lambda v: round(v * 1000), "distance": lambda v: round(v * 100),
            "hr_below": lambda v: round(v) + 100, "hr_above": lambda v: round(v) + 100,
            "hr_below_pct": round, "hr_above_pct": round, "calories": round, "power_above": lambda v: round(v) + 1000,
            "open": lambda v: None}[kind](value)


def set_target(m, target):
    """target_type, target_value and the custom range of a step. The raw values go in before the
    type: fit-tool scales a value by the sub-field its type selects once the type is set."""
    if not target:
        m.target_type = 2  # open
        return
    (kind, value), = target.items()
    if kind in ("hr_zone", "speed_zone", "power_zone"):
        m.target_value = value
    else:
        m.target_value = 0
        lo, hi = value
        scale = {"speed": lambda v: round(v * 1000), "hr": lambda v: round(v) + 100, "hr_pct": round,
                 "cadence": round}[kind]
        m.custom_target_value_low = scale(lo)
        m.custom_target_value_high = scale(hi)
    m.target_type = TARGETS[kind]


def step_message(index, step):
    m = WorkoutStepMessage()
    m.message_index = index
    if "repeat_from" in step:
        m.duration_value = step["repeat_from"]
        m.target_value = step["times"]
        m.duration_type = 6
        return m
    if step.get("name"):
        m.workout_step_name = step["name"]
    if step.get("notes"):
        m.notes = step["notes"]
    (kind, value), = step["duration"].items()
    raw = duration_value(kind, value)
    if raw is not None:
        m.duration_value = raw
    m.duration_type = DURATIONS[kind]
    set_target(m, step.get("target"))
    m.intensity = Intensity[step.get("intensity", "active").upper()]
    return m


def build(plan):
    """The FIT file of a plan, as bytes."""
    fid = FileIdMessage()
    fid.type = FileType[plan.get("file_type", "workout").upper()]
    fid.manufacturer = Manufacturer.DEVELOPMENT.value
    fid.product = 0
    fid.serial_number = 0x4D52
    fid.time_created = round(datetime.datetime(2026, 11, 28, tzinfo=datetime.timezone.utc).timestamp() * 1000)
    w = WorkoutMessage()
    w.workout_name = plan.get("name", "workout")
    w.sport = Sport[plan.get("sport", "running").upper()]
    if plan.get("sub_sport"):
        w.sub_sport = SubSport[plan["sub_sport"].upper()]
    w.num_valid_steps = len(plan["steps"])
    if plan.get("notes"):
        w.workout_description = plan["notes"]
    builder = FitFileBuilder(auto_define=True, min_string_size=50)
    builder.add(fid)
    builder.add(w)
    builder.add_all([step_message(k, s) for k, s in enumerate(plan["steps"])])
    return builder.build().to_bytes()


def write(plan, path):
    with open(path, "wb") as f:
        f.write(build(plan))


def main():
    args = sys.argv[1:]
    if not args or len(args) % 2:
        sys.exit(__doc__)
    for plan, out in zip(args[::2], args[1::2]):
        with open(plan) as f:
            write(json.load(f), out)


if __name__ == "__main__":
    main()
