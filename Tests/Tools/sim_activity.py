#!/usr/bin/env python3
"""Simulated steep hikes and rides with exact truth, in the form of the shared `gps/sim` runs.

The shared simulations (../shared/data/gps/sim) are runs and walks; their generator is not in
the repository. This one writes the two activities they lack, with the same realism and the
same files, so that every tool that reads a `gps/sim` scenario reads these too:

  X.nmea         1 Hz NMEA as a receiver sends it (GGA, GSA, GSV, GST, RMC, VTG; a no-fix prefix
                 while it acquires), for gpsfake;
  X.gpsd.json    what real gpsd 3.22 printed for it (`gpsfake -1 -p`, made by `--gpsd`);
  X.truth.json   the truth in the shared sims' keys: true distance, moving time, elevation gain,
                 the moving and stationary intervals, the injected events and 1 Hz true positions.

Scenario kinds, each from its seed alone (`random.Random(seed)`, nothing else varies):

  hike   a steep mountain hike: a level approach, then a climb on switchbacks (legs of 25-70 m,
         turns of 100-140 degrees) at 15-35 % grade and 0.4-0.9 m/s (slower where steeper, as
         Tobler's and Naismith's rules have it), 3-5 rests of 20-120 s on the way up and one at
         the top, then a descent by another, gentler path at 0.8-1.2 m/s; under trees part of
         the way (a worse sky, larger errors).
  steep  slow steep walking throughout: a short level approach, a climb at 16-40 % on switchbacks
         and straight gullies at Tobler's speed for the grade, at most 0.58 m/s (0.35 m/s at
         40 %), 3-6 rests of 20-150 s and one at the top, a descent at 20-40 % as slow
         (0.35-0.58 m/s), a short level walk out; in one of PLACES (both hemispheres, both sides
         of Greenwich), under trees part of the way.
  ride   a bike ride: town streets at 5-9 m/s with 90-degree turns and 4-6 traffic lights
         (15-60 s; braking at 1.5-2.5 m/s^2, pulling away at 0.8-1.4 m/s^2), then open road at
         8-12 m/s with a climb at 5-6 m/s and a descent at 15 m/s.

The receiver's errors are those of the shared sims' documented model: per axis a first-order
Gauss-Markov wander (1-sigma `uere` x 0.55 x the sky's factor, correlated over 40-60 s) plus
white noise (1.2 m), which goes on at stops (drift); a first fix hundreds of metres off that
decays in 1.5-2 s; multipath outliers of 20-80 m for 1-3 s every few minutes; vertical errors
about twice the horizontal; Doppler speed with 0.1 m/s noise per axis (at a stop the speed is
that noise, 0.1-0.2 m/s, and the course is held at the last one, as receivers do); GST with the
1-sigma the receiver believes; HDOP x 19 m as gpsd's `eph`.

    sim_activity.py --kind hike --seed 1 --out DIR [--gpsd] [--place tatras]
    sim_activity.py --scenarios DIR [--gpsd] [--held-out]   # the set eval_activities.py measures

Only the standard library (and gpsfake for --gpsd).
"""
import argparse
import datetime
import json
import math
import os
import random
import sys
import tempfile

import rig
import trace_files

EARTH_R = 6371008.8
DT = 0.05  # s: the kinematics' step; the receiver samples every 1 s
# The set eval_activities.py measures: (name, kind, seed, place). No setting is chosen on HELD_OUT: it
# is scored only to check what was chosen on the others (eval_activities.py --held-out).
SCENARIOS = [("hike_forest", "hike", 3001, None), ("hike_scree", "hike", 3002, None),
             ("hike_ridge", "hike", 3003, None), ("ride_town", "ride", 3101, None), ("ride_hills", "ride", 3102, None),
             ("steep_pyrenees", "steep", 4001, "pyrenees"), ("steep_tatras", "steep", 4002, "tatras"),
             ("steep_andes", "steep", 4003, "andes"), ("steep_highlands", "steep", 4004, "highlands")]
HELD_OUT = [("steep_southern_alps", "steep", 4101, "southern_alps"), ("steep_rockies", "steep", 4102, "rockies")]
# Where the steep hikes are: latitude, longitude and starting altitude ranges.
PLACES = {
    "alps": ((45.5, 47.0), (6.5, 11.0), (600, 1400)),
    "pyrenees": ((42.55, 42.85), (0.0, 1.9), (900, 1500)),
    "tatras": ((49.15, 49.25), (19.8, 20.2), (900, 1100)),
    "highlands": ((56.7, 57.2), (-5.4, -4.2), (50, 300)),
    "andes": ((-33.0, -32.6), (-70.2, -69.8), (2500, 3000)),
    "southern_alps": ((-43.8, -43.4), (170.0, 170.6), (700, 1000)),
    "rockies": ((39.5, 40.4), (-106.0, -105.5), (2600, 3000)),
}


# The true path: legs of a polyline, each with its grade and speed, and stops at leg ends.

class Leg:
    def __init__(self, heading, length, grade, speed, stop=0.0, label=None):
        self.heading, self.length, self.grade, self.speed = heading, length, grade, speed
        self.stop, self.label = stop, label


def hike_legs(rng):
    """Approach, switchbacks up at 15-35 %, rests, a summit rest, a gentler way down."""
    legs = [Leg(rng.uniform(0, 360), rng.uniform(200, 350), rng.uniform(0.0, 0.05), rng.uniform(1.1, 1.35))]
    base = rng.uniform(0, 360)
    climb_legs = rng.randint(34, 44)
    rests = set(rng.sample(range(4, climb_legs - 2), rng.randint(3, 5)))
    side = 1
    for i in range(climb_legs):
        grade = rng.uniform(0.15, 0.35)
        # Slower where steeper: 0.9 m/s at 15 %, 0.4 m/s at 35 % (hikers keep their vertical rate roughly).
        speed = max(0.4, min(0.9, 0.9 - (grade - 0.15) * 2.5 + rng.uniform(-0.05, 0.05)))
        heading = base + side * rng.uniform(50, 70)
        side = -side
        stop = rng.uniform(20, 120) if i in rests else 0.0
        legs.append(Leg(heading, rng.uniform(25, 70), grade, speed, stop, "rest" if stop else None))
    legs[-1].stop, legs[-1].label = rng.uniform(60, 120), "summit"
    down = base + 180 + rng.uniform(-30, 30)
    for _ in range(rng.randint(10, 14)):
        legs.append(Leg(down + rng.uniform(-40, 40), rng.uniform(80, 160), -rng.uniform(0.08, 0.15),
                        rng.uniform(0.8, 1.2)))
    return legs


def tobler(grade):
    """Tobler's hiking function (1993): walking speed on a grade, m/s (6 km/h x exp(-3.5 |grade + 0.05|))."""
    return 6 / 3.6 * math.exp(-3.5 * abs(grade + 0.05))


def steep_legs(rng):
    """Slow steep walking up and down: switchbacks and gullies at 16-40 % under 0.6 m/s (Tobler's speed for
    the grade, 0.35 m/s at 40 %), rests, a summit rest, a level walk in and out."""
    legs = [Leg(rng.uniform(0, 360), rng.uniform(120, 250), rng.uniform(-0.02, 0.03), rng.uniform(1.0, 1.25))]

    def zigzag(n, base, grades, pace, rests):
        side = 1
        for i in range(n):
            grade = rng.uniform(*grades)
            if rng.random() < 0.3:
                heading = base + rng.uniform(-20, 20)  # a gully: straight up (or down) the fall line
            else:
                heading = base + side * rng.uniform(50, 70)
                side = -side
            stop = rng.uniform(20, 150) if i in rests else 0.0
            speed = min(0.58, max(0.34, pace * tobler(grade) * rng.uniform(0.95, 1.05)))
            legs.append(Leg(heading, rng.uniform(25, 80), grade, speed, stop, "rest" if stop else None))

    up = rng.randint(34, 48)
    base = rng.uniform(0, 360)
    zigzag(up, base, (0.16, 0.40), 1.0, set(rng.sample(range(3, up - 2), rng.randint(3, 6))))
    legs[-1].stop, legs[-1].label = rng.uniform(60, 180), "summit"
    down = rng.randint(14, 22)
    # Down as steep, and slower than Tobler's (loose ground): 0.7 of his speed, 0.35-0.58 m/s.
    zigzag(down, base + 180 + rng.uniform(-40, 40), (-0.40, -0.20), 0.7,
           set(rng.sample(range(2, down - 2), rng.randint(0, 2))))
    heading = legs[-1].heading
    for _ in range(rng.randint(2, 4)):
        heading += rng.uniform(-30, 30)
        legs.append(Leg(heading, rng.uniform(100, 220), rng.uniform(-0.03, 0.03), rng.uniform(0.95, 1.2)))
    return legs


def ride_legs(rng):
    """Town: blocks with turns and traffic lights; then open road with a climb and a fast descent."""
    legs = []
    heading = rng.uniform(0, 360)
    blocks = rng.randint(14, 18)
    lights = set(rng.sample(range(1, blocks - 1), rng.randint(4, 6)))
    for i in range(blocks):
        heading += rng.choice((-90, 0, 0, 90))
        stop = rng.uniform(15, 60) if i in lights else 0.0
        legs.append(Leg(heading, rng.uniform(120, 320), rng.uniform(-0.01, 0.01), rng.uniform(5, 9), stop,
                        "traffic_light" if stop else None))
    for kind, n in (("flat", rng.randint(8, 12)), ("climb", rng.randint(6, 9)), ("descent", rng.randint(6, 9)),
                    ("flat", rng.randint(6, 10))):
        for _ in range(n):
            heading += rng.uniform(-20, 20)
            grade, speed = {"flat": (rng.uniform(-0.01, 0.01), rng.uniform(8, 12)),
                            "climb": (rng.uniform(0.04, 0.07), rng.uniform(5, 6)),
                            "descent": (-rng.uniform(0.05, 0.07), 15.0)}[kind]
            legs.append(Leg(heading, rng.uniform(150, 300), grade, speed))
    return legs


def kinematics(legs, accel, brake, start_wait, end_wait, alt0):
    """Moves along the legs at each leg's speed (changes limited to `accel`/`brake` m/s^2, braking in
    time for each stop and turn): (t, east, north, alt, speed, along) every DT, and the intervals."""
    # Cumulative leg ends, and the speed wanted at each leg end (0 at stops, slower through sharp turns).
    ends, caps = [], []
    d = 0.0
    for i, leg in enumerate(legs):
        d += leg.length
        ends.append(d)
        nxt = legs[i + 1] if i + 1 < len(legs) else None
        if leg.stop > 0 or nxt is None:
            caps.append(0.0)
        else:
            turn = abs((nxt.heading - leg.heading + 180) % 360 - 180)
            caps.append(min(leg.speed, nxt.speed) * (0.5 if turn > 60 else 1.0))
    out, intervals = [], [{"state": "stationary", "start_s": 0.0, "end_s": float(start_wait), "label": "start"}]
    t, s, v, i = float(start_wait), 0.0, 0.0, 0
    e = n = 0.0
    alt = alt0
    for k in range(int(start_wait / DT)):
        out.append((k * DT, 0.0, 0.0, alt0, 0.0, 0.0))
    moving_since = t
    while i < len(legs):
        leg = legs[i]
        remaining = ends[i] - s
        target = leg.speed
        # Brake for the cap at the end of this leg (and the next, short legs included).
        if v * v - caps[i] ** 2 >= 2 * brake * max(remaining, 0.0):
            target = caps[i]
        dv = target - v
        v += max(-brake * DT, min(accel * DT, dv))
        v = max(v, 0.0)
        step = v * DT
        if step >= remaining or (caps[i] == 0.0 and v < 0.05 and remaining < 0.5):
            step = max(remaining, 0.0)
            if caps[i] == 0.0:
                v = 0.0
        h = math.radians(leg.heading)
        e += step * math.sin(h)
        n += step * math.cos(h)
        alt += step * leg.grade
        s += step
        t += DT
        out.append((t, e, n, alt, v, s))
        if s >= ends[i] - 1e-9:
            if leg.stop > 0 or i + 1 == len(legs):
                intervals.append({"state": "moving", "start_s": round(moving_since, 2), "end_s": round(t, 2)})
                wait = leg.stop if leg.stop > 0 else end_wait
                label = leg.label if leg.stop > 0 else "end"
                intervals.append({"state": "stationary", "start_s": round(t, 2), "end_s": round(t + wait, 2),
                                  "label": label})
                for _ in range(int(round(wait / DT))):
                    t += DT
                    out.append((t, e, n, alt, 0.0, s))
                moving_since = t
                v = 0.0
            i += 1
    return out, intervals


# The receiver.

class GaussMarkov:
    def __init__(self, rng, sigma, tau):
        self.rng, self.sigma, self.a = rng, sigma, math.exp(-1.0 / tau)
        self.x = rng.gauss(0, sigma)

    def next(self, scale=1.0):
        self.x = self.a * self.x + math.sqrt(1 - self.a * self.a) * self.sigma * self.rng.gauss(0, 1)
        return self.x * scale


def checksum(body):
    c = 0
    for ch in body:
        c ^= ord(ch)
    return f"${body}*{c:02X}"


def nmea_lat(lat):
    d = int(abs(lat))
    return f"{d:02d}{(abs(lat) - d) * 60:08.5f}", "N" if lat >= 0 else "S"


def nmea_lon(lon):
    d = int(abs(lon))
    return f"{d:03d}{(abs(lon) - d) * 60:08.5f}", "E" if lon >= 0 else "W"


def sky_sentences(rng, fix):
    """GSA and three GSV sentences of twelve satellites, most of them used."""
    sats = [(p, rng.randint(10, 75), rng.randint(0, 359)) for p in sorted(rng.sample(range(1, 33), 12))]
    used = [p for p, _, _ in sats[:8]] if fix else []
    hdop = rng.uniform(1.0, 1.5) if fix else 99.99
    ids = ",".join([f"{p:02d}" for p in used] + [""] * (12 - len(used)))
    gsa = checksum(f"GPGSA,A,{3 if fix else 1},{ids},{hdop * 2.3 if fix else 99.99:.2f},{hdop:.2f},"
                   f"{hdop * 2.1 if fix else 99.99:.2f}")
    gsv = []
    for k in range(3):
        part = ",".join(f"{p:02d},{el:02d},{az:03d},{rng.randint(20, 45) if fix else rng.randint(15, 30)}"
                        for p, el, az in sats[4 * k:4 * k + 4])
        gsv.append(checksum(f"GPGSV,3,{k + 1},12,{part}"))
    return hdop, gsa, gsv


def receiver(rng, path, intervals, params):
    """NMEA lines and the per-second truth of a receiver carried along `path`."""
    lat0, lon0 = params["lat0"], params["lon0"]
    uere, geoid = params["uere"], params["geoid"]
    t0 = trace_files.utc(params["start"] + "Z")
    wander = [GaussMarkov(rng, uere * 0.55, rng.uniform(40, 60)) for _ in range(2)]
    vertical = GaussMarkov(rng, uere * 1.1, rng.uniform(60, 90))
    white = 1.2
    first = {"offset_m": round(rng.uniform(150, 600), 1), "decay_tau_s": round(rng.uniform(1.5, 2.0), 2),
             "vert_offset_m": round(rng.uniform(-120, 120), 1)}
    first_dir = rng.uniform(0, 2 * math.pi)
    duration = path[-1][0]
    outliers, t = [], rng.uniform(60, 200)
    while t < duration - 10:
        outliers.append({"t_s": float(int(t)), "duration_s": rng.randint(1, 3),
                         "magnitude_m": round(rng.uniform(20, 80), 1), "dir": rng.uniform(0, 2 * math.pi)})
        t += rng.uniform(120, 360)
    # Under trees for a stretch (hikes, or the spans a caller gives): the sky's factor on the errors.
    canopy = ((duration * rng.uniform(0.15, 0.3), duration * rng.uniform(0.45, 0.7))
              if params["kind"] in ("hike", "steep") else None)
    spans = [tuple(c) for c in params.get("canopy", [])] + ([canopy] if canopy else [])
    lines, truth = [], {k: [] for k in ("t_s", "lat", "lon", "alt_msl", "speed_mps", "dist_m", "has_fix",
                                        "sky_q", "sigma_h_axis_m")}
    for k in range(params["prefix"], 0, -1):
        stamp = time_text(t0 - k)
        _, gsa, gsv = sky_sentences(rng, False)
        lines += [checksum(f"GPGGA,{stamp},,,,,0,00,99.99,,,,,,"), gsa, *gsv,
                  checksum(f"GPRMC,{stamp},V,,,,,,,{date_text(t0 - k)},,,N"), checksum("GPVTG,,T,,M,,N,,K,N")]
    per_step = int(round(1 / DT))
    course = 0.0
    for sec in range(int(duration) + 1):
        row = path[min(sec * per_step, len(path) - 1)]
        _, e, n, alt, v, along = row
        prev = path[max(sec * per_step - per_step // 2, 0)]
        nxt = path[min(sec * per_step + per_step // 2, len(path) - 1)]
        ve, vn = (nxt[1] - prev[1]) / max(nxt[0] - prev[0], DT), (nxt[2] - prev[2]) / max(nxt[0] - prev[0], DT)
        q = 0.6 if any(a <= sec <= b for a, b in spans) else 0.95
        factor = 0.95 / q
        ee = e + wander[0].next(factor) + rng.gauss(0, white)
        en = n + wander[1].next(factor) + rng.gauss(0, white)
        ea = alt + vertical.next(factor) + rng.gauss(0, 1.5)
        decay = math.exp(-sec / first["decay_tau_s"])
        ee += first["offset_m"] * decay * math.sin(first_dir)
        en += first["offset_m"] * decay * math.cos(first_dir)
        ea += first["vert_offset_m"] * decay
        for o in outliers:
            if o["t_s"] <= sec < o["t_s"] + o["duration_s"]:
                ee += o["magnitude_m"] * math.sin(o["dir"])
                en += o["magnitude_m"] * math.cos(o["dir"])
        me, mn = ve + rng.gauss(0, 0.1), vn + rng.gauss(0, 0.1)
        speed = math.hypot(me, mn)
        if math.hypot(ve, vn) > 0.2:
            course = math.degrees(math.atan2(me, mn)) % 360
        lat = lat0 + math.degrees(en / EARTH_R)
        lon = lon0 + math.degrees(ee / (EARTH_R * math.cos(math.radians(lat0))))
        sigma = math.hypot(uere * 0.55 * factor, white)
        stamp = time_text(t0 + sec)
        hdop, gsa, gsv = sky_sentences(rng, True)
        la, ns = nmea_lat(lat)
        lo, ew = nmea_lon(lon)
        knots = speed / 0.514444
        lines += [checksum(f"GPGGA,{stamp},{la},{ns},{lo},{ew},1,08,{hdop:.2f},{ea:.1f},M,{geoid:.1f},M,,"), gsa, *gsv,
                  checksum(f"GPGST,{stamp},{sigma * 0.9:.1f},{sigma * 1.3:.1f},{sigma * 0.8:.1f},"
                           f"{rng.uniform(90, 120):.1f},{sigma * rng.uniform(0.9, 1.1):.1f},"
                           f"{sigma * rng.uniform(0.9, 1.1):.1f},{sigma * 2.2:.1f}"),
                  checksum(f"GPRMC,{stamp},A,{la},{ns},{lo},{ew},{knots:.3f},{course:.2f},{date_text(t0 + sec)},,,A"),
                  checksum(f"GPVTG,{course:.2f},T,,M,{knots:.3f},N,{speed * 3.6:.3f},K,A")]
        truth["t_s"].append(sec)
        truth["lat"].append(round(lat0 + math.degrees(n / EARTH_R), 8))
        truth["lon"].append(round(lon0 + math.degrees(e / (EARTH_R * math.cos(math.radians(lat0)))), 8))
        truth["alt_msl"].append(round(alt, 2))
        truth["speed_mps"].append(round(v, 3))
        truth["dist_m"].append(round(along, 2))
        truth["has_fix"].append(1)
        truth["sky_q"].append(q)
        truth["sigma_h_axis_m"].append(round(sigma, 2))
    for o in outliers:
        del o["dir"]
    return lines, truth, {"first_fix": first, "multipath_outliers": outliers, "tunnel": None,
                          "canopy_s": [round(c) for c in canopy] if canopy else None}


def time_text(t):
    s = t % 86400
    return f"{int(s // 3600):02d}{int(s % 3600 // 60):02d}{int(s % 60):02d}.00"


def date_text(t):
    d = datetime.datetime.fromtimestamp(t, datetime.timezone.utc)
    return d.strftime("%d%m%y")


def scenario(name, kind, seed, place=None):
    """The NMEA lines and the truth of one scenario (`place`: a key of PLACES, the Alps by default)."""
    rng = random.Random(seed)
    if kind in ("hike", "steep"):
        lat, lon, alt = PLACES[place or "alps"]
        params = {"kind": kind, "seed": seed, "place": place or "alps", "lat0": round(rng.uniform(*lat), 4),
                  "lon0": round(rng.uniform(*lon), 4), "alt0": round(rng.uniform(*alt)),
                  "geoid": 48.5, "uere": round(rng.uniform(3.6, 4.4), 1), "start": "2025-07-12T07:30:00",
                  "start_wait": rng.randint(8, 15), "end_wait": rng.randint(5, 10), "prefix": rng.randint(25, 35),
                  "accel": 0.5, "brake": 0.8}
        legs = hike_legs(rng) if kind == "hike" else steep_legs(rng)
    else:
        params = {"kind": kind, "seed": seed, "lat0": round(rng.uniform(51.0, 53.0), 4),
                  "lon0": round(rng.uniform(-2.5, 0.5), 4), "alt0": round(rng.uniform(30, 200)),
                  "geoid": 47.5, "uere": round(rng.uniform(3.6, 4.4), 1), "start": "2025-06-08T08:10:00",
                  "start_wait": rng.randint(8, 15), "end_wait": rng.randint(5, 10), "prefix": rng.randint(25, 35),
                  "accel": round(rng.uniform(0.8, 1.4), 2), "brake": round(rng.uniform(1.5, 2.5), 2)}
        legs = ride_legs(rng)
    path, intervals = kinematics(legs, params["accel"], params["brake"], params["start_wait"], params["end_wait"],
                                 params["alt0"])
    lines, positions, events = receiver(rng, path, intervals, params)
    moving = sum(i["end_s"] - i["start_s"] for i in intervals if i["state"] == "moving")
    gain = sum(max(0.0, b - a) for a, b in zip(positions["alt_msl"], positions["alt_msl"][1:]))
    elapsed = float(positions["t_s"][-1])
    truth = {"scenario": name, "kind": kind, "seed": seed, "params": params, "t0_utc": params["start"] + "Z",
             "first_fix_utc": params["start"] + "Z", "prefix_nofix_epochs": params["prefix"], "elapsed_s": elapsed,
             "n_fix_epochs": len(positions["t_s"]), "nmea_sentences": len(lines),
             "true_distance_m": round(sum(leg.length for leg in legs), 2), "true_moving_time_s": round(moving, 2),
             "true_elevation_gain_m": round(gain, 2), "intervals": intervals, "events": events,
             "activity": "hike" if kind == "steep" else kind,
             "notes": "times are seconds from the first fix (t=0 == first_fix_utc); distance is the horizontal "
                      "path length; made by Tests/Tools/sim_activity.py from its seed alone",
             "positions": positions}
    return lines, truth


def write(name, kind, seed, out, gpsd, place=None):
    """Writes one scenario's files; gpsd's JSON is kept when the NMEA it was made from is unchanged."""
    os.makedirs(out, exist_ok=True)
    lines, truth = scenario(name, kind, seed, place)
    nmea = os.path.join(out, f"{name}.nmea")
    text = "\r\n".join(lines) + "\r\n"
    json_path = os.path.join(out, f"{name}.gpsd.json")
    same = os.path.exists(nmea) and open(nmea, newline="").read() == text
    if not same:
        with open(nmea, "w", newline="") as f:
            f.write(text)
    with open(os.path.join(out, f"{name}.truth.json"), "w") as f:
        json.dump(truth, f)
    if gpsd and not (same and os.path.exists(json_path)):
        through_gpsd(nmea, json_path)
    return truth


def through_gpsd(nmea, json_path):
    """gpsd's own JSON for the log: gpsfake -1 -p replays it once through real gpsd and prints
    what gpsd sends its client. 2 ms a sentence: gpsd keeps up (it drops sentences only while
    it identifies the device, at the start, where the log is still acquiring). gpsfake gets a
    private TMPDIR for its control socket (see rig.py)."""
    port = rig.free_port()
    tmp = json_path + ".part"
    with open(tmp, "w") as out, tempfile.TemporaryDirectory() as work:
        proc = rig.start_gpsfake(nmea, port, work, 0.002, options=("-1", "-p"), stdout=out)
        try:
            proc.wait(1800)
        finally:
            rig.end_gpsfake(proc)
    # gpsfake's client watches NMEA too: keep gpsd's JSON, as `gpspipe -w` prints it.
    with open(tmp) as f:
        lines = [line for line in f if line.startswith("{")]
    os.remove(tmp)
    if not any('"class":"TPV"' in line for line in lines):
        raise RuntimeError(f"gpsfake gave no TPV for {nmea}")
    with open(json_path, "w") as f:
        f.writelines(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kind", choices=("hike", "steep", "ride"))
    p.add_argument("--place", choices=sorted(PLACES), help="where a hike is (default: the Alps)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--name")
    p.add_argument("--out", help="folder for one scenario")
    p.add_argument("--scenarios", help="folder for the whole set eval_activities.py measures")
    p.add_argument("--gpsd", action="store_true", help="also replay the NMEA through gpsd (gpsfake) into X.gpsd.json")
    p.add_argument("--held-out", action="store_true", help="with --scenarios: the held-out set as well")
    a = p.parse_args()
    if a.scenarios:
        for name, kind, seed, place in SCENARIOS + (HELD_OUT if a.held_out else []):
            t = write(name, kind, seed, a.scenarios, a.gpsd, place)
            print(f"{name}: {t['true_distance_m']:.0f} m, moving {t['true_moving_time_s']:.0f} s of "
                  f"{t['elapsed_s']:.0f} s, +{t['true_elevation_gain_m']:.0f} m", file=sys.stderr)
    elif a.kind and a.out:
        write(a.name or f"{a.kind}_{a.seed}", a.kind, a.seed, a.out, a.gpsd, a.place)
    else:
        p.error("give --kind and --out, or --scenarios")


if __name__ == "__main__":
    main()
