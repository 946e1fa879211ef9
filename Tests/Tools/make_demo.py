#!/usr/bin/env python3
"""Builds the bundled demo recording (Tests/Fixtures/demo/) that `make run` replays.

GPS: a walk out and back along the route of iKalman's gps_example_1 (a real
646 m walk, MIT licence), at 1.4 m/s, standing still at the start, at a
"traffic light" on the way out, at the turn and at the end; written as 1 Hz
NMEA (GGA, GSA, RMC, GST) with correlated position noise that keeps
wandering while the walker stands, as real receivers do.
IMU: composed by compose_imu.py from the Oxford step counter walks (CC BY 4.0)
for the moving parts and the UCI chest standing/talking recordings (CC BY 4.0)
for the stops, on the same timeline.

Run from the repository root:  python3 Tests/Tools/make_demo.py ../shared/data Tests/Fixtures/demo
"""
import json
import math
import os
import random
import subprocess
import sys

import rig

SPEED = 1.4          # m/s walking
START = 1717225200   # 2024-06-01T07:00:00Z
ALT = 1830.0


def route(path):
    pts = []
    for line in open(path):
        parts = line.strip().split(",")
        if len(parts) >= 2:
            try:
                pts.append((float(parts[0]), float(parts[1])))
            except ValueError:
                pass
    # Light smoothing: the raw walk carries the phone's own noise.
    sm = []
    for i in range(len(pts)):
        w = pts[max(0, i - 2): i + 3]
        sm.append((sum(p[0] for p in w) / len(w), sum(p[1] for p in w) / len(w)))
    return sm


def to_xy(lat0, lon0, lat, lon):
    k = math.cos(math.radians(lat0))
    return ((lon - lon0) * 111320.0 * k, (lat - lat0) * 110540.0)


def to_ll(lat0, lon0, x, y):
    k = math.cos(math.radians(lat0))
    return (lat0 + y / 110540.0, lon0 + x / (111320.0 * k))


def planar(pts):
    """The route in metres from its first point: (lat0, lon0, xy, cumulative lengths)."""
    lat0, lon0 = pts[0]
    xy = [to_xy(lat0, lon0, *p) for p in pts]
    cum = [0.0]
    for a, b in zip(xy, xy[1:]):
        cum.append(cum[-1] + math.dist(a, b))
    return lat0, lon0, xy, cum


def along(xy, cum, d):
    """(x, y, course in degrees) at distance `d` along the polyline `xy` with cumulative lengths `cum`."""
    d = max(0.0, min(cum[-1], d))
    for i in range(1, len(cum)):
        if cum[i] >= d:
            w = (d - cum[i - 1]) / max(cum[i] - cum[i - 1], 1e-9)
            x = xy[i - 1][0] + w * (xy[i][0] - xy[i - 1][0])
            y = xy[i - 1][1] + w * (xy[i][1] - xy[i - 1][1])
            course = math.degrees(math.atan2(xy[i][0] - xy[i - 1][0], xy[i][1] - xy[i - 1][1])) % 360
            return x, y, course
    return xy[-1][0], xy[-1][1], 0.0


def nmea(body):
    c = 0
    for ch in body:
        c ^= ord(ch)
    return f"${body}*{c:02X}\r\n"


def dm(value, is_lat):
    hemi = ("N" if value >= 0 else "S") if is_lat else ("E" if value >= 0 else "W")
    v = abs(value)
    deg = int(v)
    minutes = (v - deg) * 60
    return (f"{deg:02d}{minutes:07.4f}" if is_lat else f"{deg:03d}{minutes:07.4f}"), hemi


def main():
    data, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    lat0, lon0, xy, cum = planar(route(os.path.join(data, "gps/real/ikalman/gps_example_1")))
    length = cum[-1]

    def at(d):
        return along(xy, cum, d)

    # Timeline: (state, seconds, from distance, to distance)
    light = 0.45 * length
    plan = [("stationary", 20, 0, 0), ("moving", light / SPEED, 0, light), ("stationary", 40, light, light),
            ("moving", (length - light) / SPEED, light, length), ("stationary", 60, length, length),
            ("moving", length / SPEED, length, 0), ("stationary", 15, 0, 0)]
    intervals, t = [], 0.0
    for state, dur, d0, d1 in plan:
        intervals.append({"state": state, "start_s": round(t, 2), "end_s": round(t + dur, 2), "from_m": d0, "to_m": d1})
        t += dur
    total = t

    rng = random.Random(7)
    nx = ny = 0.0
    lines = []
    prev = None
    true_dist = 0.0
    for sec in range(int(total) + 1):
        iv = next((i for i in intervals if i["start_s"] <= sec < i["end_s"]), intervals[-1])
        frac = (sec - iv["start_s"]) / max(iv["end_s"] - iv["start_s"], 1e-9)
        d = iv["from_m"] + frac * (iv["to_m"] - iv["from_m"])
        x, y, course = at(d)
        moving = iv["state"] == "moving"
        if iv["to_m"] < iv["from_m"]:
            course = (course + 180) % 360
        if prev is not None:
            true_dist += math.dist(prev, (x, y))
        prev = (x, y)
        # Correlated receiver noise (tau 20 s, 1.5 m), never frozen.
        a = math.exp(-1 / 20)
        nx = a * nx + math.sqrt(1 - a * a) * rng.gauss(0, 1.5)
        ny = a * ny + math.sqrt(1 - a * a) * rng.gauss(0, 1.5)
        lat, lon = to_ll(lat0, lon0, x + nx, y + ny)
        speed = max(0.0, (SPEED if moving else 0.0) + rng.gauss(0, 0.08))
        ts = START + sec
        hh, mm, ss = (ts // 3600) % 24, (ts // 60) % 60, ts % 60
        hms = f"{hh:02d}{mm:02d}{ss:02d}.00"
        la, lah = dm(lat, True)
        lo, loh = dm(lon, False)
        alt = ALT + rng.gauss(0, 0.8)
        lines.append(nmea(f"GPGGA,{hms},{la},{lah},{lo},{loh},1,09,0.9,{alt:.1f},M,-24.0,M,,"))
        lines.append(nmea("GPGSA,A,3,02,05,12,15,18,21,24,25,29,,,,1.6,0.9,1.3"))
        lines.append(nmea(f"GPRMC,{hms},A,{la},{lah},{lo},{loh},{speed / 0.514444:.2f},{course:.1f},010624,,,A"))
        lines.append(nmea(f"GPGST,{hms},2.1,2.6,1.9,35.0,1.8,2.0,3.5"))
    with open(os.path.join(out, "walk.nmea"), "w", newline="") as f:
        f.writelines(lines)

    steps = os.path.join(data, "steps")
    subprocess.run([sys.executable, os.path.join(rig.HERE, "compose_imu.py"),
                    "--intervals", json.dumps([{k: v for k, v in i.items() if k in ("state", "start_s", "end_s")}
                                               for i in intervals]),
                    "--t0", "0", "--rate", "50", "--decimals", "4", "--seed", "3",
                    "--moving", os.path.join(steps, "oxford_step_counter"),
                    "--still", os.path.join(steps, "uci_chest_casale_nonwalk"),
                    "--out", os.path.join(out, "walk-imu.csv.gz"),
                    "--truth-out", os.path.join(out, "walk-imu.truth.json")], check=True)
    imu_truth = json.load(open(os.path.join(out, "walk-imu.truth.json")))
    json.dump({"duration_s": total, "true_distance_m": round(true_dist, 1), "route_length_m": round(length, 1),
               "speed_mps": SPEED, "start_utc": START, "intervals": intervals,
               "true_moving_time_s": round(sum(i["end_s"] - i["start_s"] for i in intervals if i["state"] == "moving"), 1),
               "steps": imu_truth["steps"], "nmea_sentences_per_epoch": 4},
              open(os.path.join(out, "walk.truth.json"), "w"), indent=1)
    os.remove(os.path.join(out, "walk-imu.truth.json"))
    print(f"demo: {total:.0f} s, {true_dist:.0f} m, {imu_truth['steps']} steps", file=sys.stderr)


if __name__ == "__main__":
    main()
