#!/usr/bin/env python3
"""The arm64 build against this machine's, figure by figure.

A Pi must give the wearer the figures this machine gives. Two comparisons, both
run by `make deb-check ARCH=arm64` (deb_check.py) in the clean trixie arm64 root
where the package was installed, every arm64 program run by qemu-user-static:

* `analyze_everywhere`: `moonrunner analyze --json` in every mode on every
  shared trace (rig.analyze_cases, as output_digest.py keeps them: IMU alone, GPS with the
  written track, GPS with the barometer, with heart rate, with each course in
  each format), by the installed arm64 CLI and by this machine's release
  build. Every member of the two outputs must agree: integers, strings and
  the exit status exactly, floating-point numbers to 1e-9 relative (the last
  bits of a float may differ between two libms; no figure may);
* `recorded_walk`: the bundled walk recorded live (record_walk.py: trixie's
  arm64 gpsd through gpsfake replaying walk.nmea, the emulated MPU-6050
  replaying the walk's IMU trace, both on the receiver's clock) by the
  installed arm64 daemon and by this machine's release build with its own gpsd
  at the same speed; the sessions (`moonrunner show --json`) and their GPX and
  FIT exports are compared: distance, moving time, steps, climb, points.

Standalone, without a package: the cross-built binaries run through qemu with
the sysroot as their library root:

    arch_compare.py --bin .build/release --arm64 .build/moonrunner-trixie-arm64/release \\
        --sysroot ~/.cache/moonrunner-cross/sysroot-arm64 [--data ../shared/data]
"""
import argparse
import concurrent.futures
import json
import math
import os
import shutil
import subprocess
import sys

import rig

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REL_TOL = 1e-9
# Under emulation a replay runs slower than on the Pi itself; both sides use the same speed.
WALK_SPEED = 4
# The figures of each mode shown in the table (the comparison itself covers every member).
SHOWN = {
    "imu": ["steps", "cadence_spm"],
    "gps": ["distance_m", "moving_s", "elevation_gain_m"],
    "baro": ["elevation_gain_m", "elevation_loss_m", "altitude_source"],
    "hr": ["hr_avg_bpm", "hr_max_bpm", "trimp", "calories_kcal"],
    "course": ["distance_m", "moving_s"],
}


def differences(a, b, path="$"):
    """Where two JSON values disagree: integers, strings, booleans and null exactly, floats to REL_TOL."""
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
            if a == b or (math.isfinite(a) and math.isfinite(b) and
                          abs(a - b) <= REL_TOL * max(1.0, abs(a), abs(b))):
                return []
        return [(path, a, b)]
    if isinstance(a, dict) and isinstance(b, dict):
        out = [(f"{path}.{k}", a.get(k, "<absent>"), b.get(k, "<absent>")) for k in sorted(set(a) ^ set(b))]
        for k in sorted(set(a) & set(b)):
            out += differences(a[k], b[k], f"{path}.{k}")
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [(f"{path}[len]", len(a), len(b))]
        out = []
        for i, (x, y) in enumerate(zip(a, b)):
            out += differences(x, y, f"{path}[{i}]")
        return out
    return [] if a == b else [(path, a, b)]


def bits_apart(a, b, path="$"):
    """How many floats differ at all (in their last bits): reported, not refused."""
    if isinstance(a, float) and isinstance(b, float):
        return int(a != b)
    if isinstance(a, dict) and isinstance(b, dict):
        return sum(bits_apart(a[k], b[k]) for k in set(a) & set(b))
    if isinstance(a, list) and isinstance(b, list):
        return sum(bits_apart(x, y) for x, y in zip(a, b))
    return 0


def parse(raw):
    """(JSON, exit status) of one output_digest-style analyze output."""
    text, _, tail = raw.decode().rpartition("\n[exit ")
    status = int(tail.split("]")[0])
    try:
        return json.loads(text), status
    except ValueError:
        return text.strip(), status


def compare_cases(run_here, run_there, cases, jobs):
    """Runs every case on both sides; returns rows (name, mode, figures, diffs, floats apart)."""
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        here = list(pool.map(lambda c: run_here(c[1]), cases))
        there = list(pool.map(lambda c: run_there(c[1]), cases))
    rows = []
    for (name, _), h, t in zip(cases, here, there):
        (hj, hs), (tj, ts) = parse(h), parse(t)
        diffs = differences(hj, tj) + ([("exit", hs, ts)] if hs != ts else [])
        mode = name.split("/")[0]
        shown = [(k, hj.get(k), tj.get(k)) for k in SHOWN.get(mode, []) if isinstance(hj, dict) and isinstance(tj, dict)]
        rows.append((name, mode, shown, diffs, bits_apart(hj, tj)))
    return rows


def report(rows, out_tsv=None):
    """Prints the differences and a summary per mode; writes every shown figure to a TSV."""
    by_mode = {}
    for name, mode, shown, diffs, apart in rows:
        m = by_mode.setdefault(mode, [0, 0, 0])
        m[0] += 1
        m[1] += bool(diffs)
        m[2] += apart
        for path, x, y in diffs[:5]:
            print(f"DIFFERS {name} {path}: amd64 {x!r} arm64 {y!r}")
    print("mode    traces  differing  floats apart in the last bits (allowed)")
    for mode, (n, bad, apart) in by_mode.items():
        print(f"{mode:7} {n:6}  {bad:9}  {apart}")
    if out_tsv:
        with open(out_tsv, "w") as f:
            f.write("trace\tfigure\tamd64\tarm64\n")
            for name, _, shown, _, _ in rows:
                for k, x, y in shown:
                    f.write(f"{name}\t{k}\t{x}\t{y}\n")
    return sum(1 for r in rows if r[3])


def analyze_here(bin_dir):
    cli = os.path.join(bin_dir, "moonrunner")
    return lambda argv: rig.analyze_output(cli, argv)


def analyze_everywhere(check, root, bin_dir, data, jobs=2):
    """Every analyze case, by the arm64 CLI installed in `root` (deb_check's Chroot) and by this machine's."""
    inner = "/tmp/data"
    shutil.rmtree(root.path(inner), ignore_errors=True)
    shutil.copytree(data, root.path(inner))
    cases = rig.analyze_cases(data)

    def there(argv):
        moved = [a.replace(data, inner) if a.startswith(data) else a for a in argv]
        res = subprocess.run(["/usr/sbin/chroot", root.dir, "/usr/bin/moonrunner", "analyze", *moved, "--json"],
                             capture_output=True, timeout=3600, env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C.UTF-8"})
        return res.stdout + f"\n[exit {res.returncode}]\n".encode()

    rows = compare_cases(analyze_here(bin_dir), there, cases, jobs)
    bad = report(rows, os.path.join(os.path.dirname(root.dir), "arch-compare.tsv"))
    check(bad == 0 and len(rows) == len(cases),
          f"moonrunner analyze on arm64 (qemu) agrees with amd64 on {len(rows) - bad} of {len(cases)} "
          f"trace and mode runs (floats to {REL_TOL:g} relative)")


def export_figures(out_dir):
    """What a site reads from the recorded session: show --json's figures, the GPX's points and
    length (gpxpy), the FIT's records and total distance (Garmin's FIT SDK)."""
    import gpxpy
    from garmin_fit_sdk import Decoder, Stream
    shown = json.load(open(os.path.join(out_dir, "show.json")))
    # show --json: {"session": {...}, "stats": {...}, ...}; the climb is only in "stats".
    stats = shown.get("stats") or shown.get("session", shown)
    gpx = gpxpy.parse(open(os.path.join(out_dir, "session.gpx")))
    messages, _ = Decoder(Stream.from_file(os.path.join(out_dir, "session.fit"))).read()
    fit_session = (messages.get("session_mesgs") or [{}])[0]
    return {
        "distance_m": stats.get("distance_m"),
        "moving_s": stats.get("moving_s"),
        "steps": stats.get("steps"),
        "climb_m": stats.get("elevation_gain_m"),
        "descent_m": stats.get("elevation_loss_m"),
        "gpx_points": sum(len(s.points) for t in gpx.tracks for s in t.segments),
        "gpx_length_m": round(gpx.length_2d(), 1),
        "fit_records": len(messages.get("record_mesgs", [])),
        "fit_distance_m": fit_session.get("total_distance"),
    }


def walk_here(bin_dir, out_dir, work):
    """The walk recorded by this machine's build with its own gpsd (record_walk.py)."""
    subprocess.run([sys.executable, os.path.join(ROOT, "Tests/Tools/record_walk.py"), "--bin", bin_dir,
                    "--out", out_dir, "--work", work, "--speed", str(WALK_SPEED)], check=True)


def walk_there(root, out_dir):
    """The walk recorded in the arm64 root by the installed binaries and trixie's gpsd (record_walk.py)."""
    # trixie's gpsfake is in gpsd-clients with the graphical clients (GTK, matplotlib: half an hour
    # of installing under emulation); it is a script over python3-gps, so it is taken from that package alone.
    root.sh("apt-get install -y -qq --no-install-recommends gpsd python3-gps python3 procps >/tmp/gpsd.log"
            " && cd /tmp && apt-get download -qq gpsd-clients && dpkg-deb --fsys-tarfile gpsd-clients_*.deb"
            " | tar -x -C / ./usr/bin/gpsfake && rm gpsd-clients_*.deb")
    inner = "/tmp/mr"
    shutil.rmtree(root.path(inner), ignore_errors=True)
    for part in ("Tests/Tools/record_walk.py", "Tests/Tools/rig.py", "Tests/Fixtures/demo"):
        src, dst = os.path.join(ROOT, part), root.path(f"{inner}/{part}")
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        (shutil.copytree if os.path.isdir(src) else shutil.copy)(src, dst)
    root.sh(f"mkdir -p {inner}/bin && ln -s /usr/sbin/moonrunnerd /usr/bin/moonrunner {inner}/bin/")
    r = root.sh(f"python3 {inner}/Tests/Tools/record_walk.py --bin {inner}/bin --out {inner}/out "
                f"--work {inner}/run --speed {WALK_SPEED} </dev/null >{inner}/record.log 2>&1", check=False)
    print(open(root.path(f"{inner}/record.log")).read()[-3000:], flush=True)
    if r.returncode != 0:
        print(open(root.path(f"{inner}/run/daemon.log")).read()[-3000:], flush=True)
        raise RuntimeError(f"the recording in the arm64 root failed ({r.returncode})")
    shutil.rmtree(out_dir, ignore_errors=True)
    shutil.copytree(root.path(f"{inner}/out"), out_dir)


# How far two live recordings of one replay may differ, and why: the fixes gpsd sends before the
# session starts (while the CLI's `start` is on its way) are seen while idle, so a run's first track
# point can come a fix earlier or later; everything after it is decided by the same inputs on the
# same clock. The tolerances are eval_live's (live against analyze); the steps, summed over the
# same span as the distance, whose ends may fall a fix apart (1 s of walking is 2 steps), as the
# distance: 0.5 %. The step detector itself is compared exactly by analyze on every IMU trace.
WALK_TOLERANCE = {
    "distance_m": ("0.5 %", lambda a, b: abs(a - b) <= 0.005 * max(a, b)),
    "gpx_length_m": ("0.5 %", lambda a, b: abs(a - b) <= 0.005 * max(a, b)),
    "fit_distance_m": ("0.5 %", lambda a, b: abs(a - b) <= 0.005 * max(a, b)),
    "moving_s": ("1 s a pause, 5 s", lambda a, b: abs(a - b) <= 5),
    "steps": ("0.5 %", lambda a, b: abs(a - b) <= 0.005 * max(a, b)),
    "climb_m": ("1 m", lambda a, b: abs(a - b) <= 1),
    "descent_m": ("1 m", lambda a, b: abs(a - b) <= 1),
    "gpx_points": ("3 points", lambda a, b: abs(a - b) <= 3),
    "fit_records": ("3 records", lambda a, b: abs(a - b) <= 3),
}


def recorded_walk(check, root, bin_dir, work):
    """The walk recorded by both builds, each with its own gpsd; their sessions and exports side by side."""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    walk_there(root, os.path.join(work, "arm64"))
    walk_here(bin_dir, os.path.join(work, "amd64"), os.path.join(work, "amd64-run"))
    compare_walks(check, work)


def compare_walks(check, work):
    """The two recordings of `recorded_walk`, figure by figure, each within its tolerance."""
    here, there = export_figures(os.path.join(work, "amd64")), export_figures(os.path.join(work, "arm64"))
    print("figure           amd64 (bookworm's gpsd 3.22)   arm64 (trixie's gpsd 3.25, qemu)   may differ by")
    apart = []
    for k, (tolerance, agrees) in WALK_TOLERANCE.items():
        a, b = here.get(k), there.get(k)
        print(f"{k:16} {a!s:30} {b!s:34} {tolerance}")
        if a is None or b is None or not agrees(a, b):
            apart.append(f"{k} {a} vs {b}")
    check(not apart, "the walk recorded on arm64 (trixie's gpsd, qemu) agrees with amd64's: "
          + (", ".join(apart) if apart else "distance, moving time, steps, climb, points and the GPX and FIT exports"))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", required=True, help="this machine's release build folder")
    p.add_argument("--arm64", required=True, help="the cross-built release folder")
    p.add_argument("--sysroot", required=True, help="the arm64 sysroot (QEMU_LD_PREFIX)")
    p.add_argument("--data", default=os.path.join(ROOT, "../shared/data"))
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    p.add_argument("--tsv", help="write every shown figure of both builds here")
    a = p.parse_args()
    env = dict(os.environ, QEMU_LD_PREFIX=a.sysroot)
    cli = os.path.join(a.arm64, "moonrunner")

    def there(argv):
        res = subprocess.run([cli, "analyze", *argv, "--json"], capture_output=True, env=env, timeout=3600)
        return res.stdout + f"\n[exit {res.returncode}]\n".encode()

    cases = rig.analyze_cases(a.data)
    rows = compare_cases(analyze_here(a.bin), there, cases, a.jobs)
    bad = report(rows, a.tsv)
    print(f"arch compare: {len(rows) - bad} of {len(rows)} runs agree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
