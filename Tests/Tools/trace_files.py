"""The shared data's files as the tools read them: where the recordings are, CSV and
all-numeric traces (gzipped or not), labelled steps, the README's rule for a walk among
standing, the truth files' times, an IMU trace along a simulated run, and the demo walk
repeated with its clock running on."""
import csv
import datetime
import gzip
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEMO = os.path.join(os.path.dirname(HERE), "Fixtures", "demo")


def find_data(root, sub, *needed):
    """The folder among `root` and `root/sub` that holds every folder in `needed`, or None."""
    for cand in (root, os.path.join(root, sub)):
        if all(os.path.isdir(os.path.join(cand, n)) for n in needed):
            return cand
    return None


def open_text(path, mode="rt"):
    """A text file, through gzip when its name ends in .gz."""
    return gzip.open(path, mode) if path.endswith(".gz") else open(path, mode)


def read_csv(path):
    """A CSV file with a header line as a list of dicts (gzipped or not)."""
    with open_text(path) as f:
        return list(csv.DictReader(f))


def read_table(path):
    """An all-numeric CSV file (an IMU trace): (header, rows of floats)."""
    with open_text(path) as f:
        header = [h.strip() for h in f.readline().split(",")]
        rows = [list(map(float, line.split(","))) for line in f if line.strip()]
    return header, rows


def read_imu(path):
    """An IMU trace: (times, rows of (ax, ay, az) in g)."""
    header, rows = read_table(path)
    it, ix, iy, iz = (header.index(c) for c in ("t", "ax", "ay", "az"))
    return [r[it] for r in rows], [(r[ix], r[iy], r[iz]) for r in rows]


def read_steps(path):
    """The labelled step instants of a NAME.steps.csv (its first column), sorted; [] when there is none."""
    out = []
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            try:
                out.append(float(line.split(",")[0]))
            except ValueError:
                continue  # the header, or an empty line
    return sorted(out)


def walking_like(ts, rows, t0, t1):
    """The data README's QC rule for the zero-step traces: |a| repeats at a
    step's lag (autocorrelation > 0.5 at 0.38-0.71 s) with std > 0.05 g.
    Some 'standing' segments open with the walk that led there; such a
    window is no material for a stop."""
    mags = [math.sqrt(r[0] ** 2 + r[1] ** 2 + r[2] ** 2) for tt, r in zip(ts, rows) if t0 <= tt <= t1]
    if len(mags) < 20:
        return False
    rate = (len(mags) - 1) / max(t1 - t0, 1e-9)
    step = max(1, int(rate / 26))  # ~26 Hz is plenty for lags of 0.38-0.71 s
    x = mags[::step]
    rate /= step
    n = len(x)
    mean_x = sum(x) / n
    d = [v - mean_x for v in x]
    var = sum(v * v for v in d) / n
    if var ** 0.5 <= 0.05:
        return False
    for lag in range(max(1, int(0.38 * rate)), int(0.71 * rate) + 1):
        if lag >= n:
            break
        if sum(d[i] * d[i + lag] for i in range(n - lag)) / ((n - lag) * var) > 0.5:
            return True
    return False


def utc(text):
    """UNIX seconds of an ISO 8601 time such as the truth files' `2024-06-01T07:00:00Z`."""
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


# A simulated run of gps/sim: its receiver's first time, and an IMU trace along it.

def first_timed_fix(gpsd_json):
    """UNIX time of the first TPV that carries a time (gpsd's first fix has none)."""
    with open(gpsd_json) as f:
        for line in f:
            if '"TPV"' in line and '"time"' in line:
                o = json.loads(line)
                if o.get("mode", 0) >= 2:
                    return int(utc(o["time"][:19] + "Z"))
    raise RuntimeError(f"{gpsd_json}: no fix with a time")


def compose_scenario_imu(data, truth_path, seed, out, start_after):
    """An IMU trace along the scenario's intervals, starting at `start_after` (UNIX s),
    quantised to the emulated sensor's resolution at +-8 g (1/4096 g) so that the
    emulator carries it bit for bit."""
    truth = json.load(open(truth_path))
    t0 = int(utc(truth["first_fix_utc"]))
    skip = start_after - t0
    intervals = []
    for iv in truth["intervals"]:
        # On one 100 Hz grid from start to end: the emulated device samples on one.
        s, e = round(max(float(iv["start_s"]), skip), 2), round(float(iv["end_s"]), 2)
        if e > s:
            intervals.append({"state": iv["state"], "start_s": s, "end_s": e})
    steps = os.path.join(data, "steps")
    raw = out + ".raw.csv"
    subprocess.run([sys.executable, os.path.join(HERE, "compose_imu.py"), "--intervals", json.dumps(intervals),
                    "--t0", str(t0), "--moving", os.path.join(steps, "oxford_step_counter"),
                    os.path.join(steps, "adept_outdoor_run_hip"), "--still",
                    os.path.join(steps, "uci_chest_casale_nonwalk"), "--seed", str(seed), "--grid", "--out", raw],
                   check=True, capture_output=True)
    with open(raw) as src, open(out, "w") as dst:
        dst.write(next(src))
        for line in src:
            t, ax, ay, az = line.split(",")[:4]
            q = [round(float(v) * 4096) / 4096 for v in (ax, ay, az)]
            dst.write(f"{t},{q[0]!r},{q[1]!r},{q[2]!r}\n")
    os.remove(raw)


def repeated_walk(work, copies):
    """The demo walk `copies` times over, each copy's times moved on by the walk's length, so
    the receiver's clock runs on for hours (gpsfake's own loop would start the clock over)."""
    lines = open(os.path.join(DEMO, "walk.nmea")).read().split("\n")
    stamps = [l.split(",")[1] for l in lines if l.startswith("$GPGGA")]
    first, last = (datetime.datetime.strptime(s, "%H%M%S.%f") for s in (stamps[0], stamps[-1]))
    period = int((last - first).total_seconds()) + 1
    path = os.path.join(work, f"walk-x{copies}.nmea")
    with open(path, "w") as out:
        for k in range(copies):
            for line in lines:
                if line.startswith("$"):
                    out.write(shifted(line, k * period) + "\n")
    return path


def shifted(sentence, seconds):
    """An NMEA sentence with its time (and RMC's date) moved on by `seconds`, its checksum renewed."""
    body = sentence[1:sentence.index("*")]
    f = body.split(",")
    if f[0] in ("GPGGA", "GPGST", "GPRMC") and f[1]:
        date = f[9] if f[0] == "GPRMC" else "010100"
        t = datetime.datetime.strptime(date + f[1], "%d%m%y%H%M%S.%f") + datetime.timedelta(seconds=seconds)
        f[1] = t.strftime("%H%M%S.") + f[1].split(".")[1]
        if f[0] == "GPRMC":
            f[9] = t.strftime("%d%m%y")
    body = ",".join(f)
    checksum = 0
    for c in body:
        checksum ^= ord(c)
    return f"${body}*{checksum:02X}"
