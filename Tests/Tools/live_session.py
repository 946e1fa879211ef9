#!/usr/bin/env python3
"""Record one simulated run live, as a wearer's Pi would, and read back what they would upload.

Real gpsd (through gpsfake) replays `gps/sim/X.nmea`; moonrunnerd runs with the
emulated MPU-6050 replaying an IMU trace composed along the scenario's own
moving and stationary intervals (compose_imu.py), on the receiver's clock; the
real CLI starts a session before the first fix, stops it after the last, shows
it and exports it in every format. Then:

  * `moonrunner analyze` runs the same core over the same two inputs (gpsd's
    JSON as gpsd sent it in this replay, kept by gpsfake's own client), from the
    live session's start to its stop (`--start`/`--stop` on the receiver's clock);
  * the exports are measured the way sites measure them: gpxpy's `length_2d()`
    per GPX segment, the GeoJSON lines with the same formula, the TCX as gpsbabel
    reads it (converted to GPX, then gpxpy), FIT's last `record.distance` and
    `session.total_distance` (Garmin's FIT SDK).

    live_session.py --bin .build/release [--data ../shared/data] --scenario a_track \\
        [--speed 20] [--seed 1] [--work DIR] [--keep]

Prints one JSON object (and a short table on stderr). Needs gpsfake, gpsbabel,
and the Python packages gpxpy and garmin-fit-sdk (`make deps` installs them).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import rig
import trace_files


def count_fixes(gpsd_json):
    """Epochs with a timed fix, as the daemon counts them (one per receiver time)."""
    times = set()
    with open(gpsd_json) as f:
        for line in f:
            if '"TPV"' in line and '"time"' in line:
                o = json.loads(line)
                if o.get("mode", 0) >= 2 and "lat" in o:
                    times.add(o["time"])
    return len(times)


class Recording:
    """moonrunnerd and gpsfake replaying one scenario, and the CLI against them."""

    def __init__(self, bin_dir, work, speed):
        self.bin, self.work, self.speed = bin_dir, work, speed
        self.sock = os.path.join(work, "mr.sock")
        self.gpsd_json = os.path.join(work, "gpsd.json")
        self.port = rig.free_port()
        self.gpsfake = self.daemon = None

    def cli(self, *args):
        return rig.cli(self.bin, self.sock, *args, check=True, timeout=120).stdout

    def start(self, nmea, per_epoch, imu_trace, config):
        """The daemon first, then gpsfake: the daemon's connection is gpsfake's
        first client, so it sees the log from its first sentence (a probe
        connection would start the feed before the daemon is there)."""
        self.daemon = rig.start_daemon(self.bin, self.sock, os.path.join(self.work, "state"), self.port,
                                       f"replay:{imu_trace},speed={self.speed:g}", "--log-level", "info",
                                       config=config, log=open(os.path.join(self.work, "daemon.log"), "w"))
        cycle = 1.0 / (self.speed * per_epoch)
        # -1: one pass. -p: gpsfake is a client itself and keeps gpsd's JSON
        # (what the daemon is sent: gpsd drops a few sentences while it
        # identifies the device at high speed); analyze reads that.
        self.gpsfake = rig.start_gpsfake(nmea, self.port, self.work, cycle, options=("-1", "-p"),
                                         stdout=open(self.gpsd_json, "w"),
                                         log=open(os.path.join(self.work, "gpsfake.log"), "w"))
        rig.wait_for(lambda: rig.status(self.bin, self.sock)["gps"]["connects"] >= 1, 30, "the daemon to reach gpsd")

    def stop(self):
        rig.stop_daemon(self.daemon)
        rig.end_gpsfake(self.gpsfake)


def gpx_length(path):
    import gpxpy
    g = gpxpy.parse(open(path))
    segs = [s for t in g.tracks for s in t.segments]
    return sum(s.length_2d() for s in segs), len(segs), sum(len(s.points) for s in segs)


def geojson_length(path):
    import gpxpy.geo as geo
    doc = json.load(open(path))
    total = 0.0
    for feat in doc.get("features", []):
        g = feat.get("geometry") or {}
        lines = g["coordinates"] if g.get("type") == "MultiLineString" else (
            [g["coordinates"]] if g.get("type") == "LineString" else [])
        for line in lines:
            locs = [geo.Location(lat, lon) for lon, lat, *_ in line]
            total += geo.length_2d(locs)
    return total


def tcx_length(path, work):
    gpx = os.path.join(work, "from-tcx.gpx")
    r = subprocess.run(["gpsbabel", "-t", "-i", "gtrnctr", "-f", path, "-o", "gpx", "-F", gpx],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"gpsbabel tcx: {r.stderr}")
    return gpx_length(gpx)[0]


def fit_figures(path):
    from garmin_fit_sdk import Decoder, Stream
    d = Decoder(Stream.from_file(path))
    ok = d.check_integrity()
    d = Decoder(Stream.from_file(path))
    msgs, errors = d.read()
    recs = msgs.get("record_mesgs", [])
    last = next((r.get("distance") for r in reversed(recs) if r.get("distance") is not None), None)
    s = msgs["session_mesgs"][0]
    times = [r["timestamp"].timestamp() for r in recs if r.get("timestamp") is not None]
    return {"fit_ok": ok and not errors, "fit_records": len(recs), "fit_last_record_m": last,
            "fit_total_m": s.get("total_distance"), "fit_timer_s": s.get("total_timer_time"),
            "fit_start": s["start_time"].timestamp() if s.get("start_time") else None,
            "fit_times_ordered": all(b >= a for a, b in zip(times, times[1:]))}


def run(a):
    sim = os.path.join(a.data, "gps", "sim")
    truth_path = os.path.join(sim, f"{a.scenario}.truth.json")
    truth = json.load(open(truth_path))
    gpsd_json = os.path.join(sim, f"{a.scenario}.gpsd.json")
    work = a.work or tempfile.mkdtemp(prefix=f"mr-live-{a.scenario}-")
    os.makedirs(work, exist_ok=True)
    imu = os.path.join(work, "imu.csv")
    trace_files.compose_scenario_imu(a.data, truth_path, a.seed, imu, trace_files.first_timed_fix(gpsd_json) + 15)
    per_epoch = truth["nmea_sentences"] / truth["n_epochs_total"]
    run = Recording(a.bin, work, a.speed)
    try:
        run.start(os.path.join(sim, f"{a.scenario}.nmea"), per_epoch, imu, a.config)
        # The session starts before the first fix, as a wearer starts it; the IMU
        # trace plays from the receiver's first fix on (it is on its clock).
        fixes = count_fixes(gpsd_json)
        status = lambda: json.loads(run.cli("status", "--json"))
        run.cli("start", "--activity", "run")
        # Stop as soon as the daemon has every fix of the log (gpsfake -1 then
        # idles), or the count has stood still near the end (gpsd may merge an epoch).
        deadline = time.monotonic() + truth["n_epochs_total"] / a.speed * 4 + 60
        count, since = -1, time.monotonic()
        while time.monotonic() < deadline:
            n = status()["gps"]["fixes"]
            if n != count:
                count, since = n, time.monotonic()
            if n >= fixes or (n >= 0.98 * fixes and time.monotonic() - since > 0.3):
                break
            time.sleep(0.02)
        run.cli("stop")
        final_status = status()
        sid = json.loads(run.cli("sessions", "--json", "--limit", "1"))["sessions"][0]["id"]
        show = json.loads(run.cli("show", str(sid), "--json"))
        files = {}
        for fmt in ("gpx", "tcx", "fit", "geojson"):
            path = os.path.join(work, f"session.{fmt}")
            run.cli("export", str(sid), "--format", fmt, "-o", path)
            files[fmt] = path
    finally:
        run.stop()

    stats = show["stats"]
    sess = show["session"]
    off = rig.analyze(a.bin, "--gps", run.gpsd_json, "--imu", imu, "--start", repr(sess["start_time"]),
                      "--stop", repr(sess["end_time"]))
    gpx_m, gpx_segs, gpx_pts = gpx_length(files["gpx"])
    out = {
        "scenario": a.scenario, "speed": a.speed, "seed": a.seed,
        "truth_m": truth["true_distance_m"], "truth_moving_s": truth["true_moving_time_s"],
        "session_m": stats["distance_m"], "session_moving_s": stats["moving_s"], "session_steps": stats["steps"],
        "session_points": show["points"], "session_pauses": show["pauses"],
        "session_start": sess["start_time"], "session_end": sess["end_time"],
        "analyze_m": off["distance_m"], "analyze_moving_s": off["moving_s"], "analyze_steps": off["steps"],
        "analyze_pauses": off["pauses"],
        "gpx_m": gpx_m, "gpx_segments": gpx_segs, "gpx_points": gpx_pts,
        "geojson_m": geojson_length(files["geojson"]), "tcx_m": tcx_length(files["tcx"], work),
        **fit_figures(files["fit"]), "imu": final_status["imu"], "gps": final_status["gps"], "work": work,
    }
    if not a.keep and not a.work:
        shutil.rmtree(work, ignore_errors=True)
    else:
        with open(os.path.join(work, "result.json"), "w") as f:
            json.dump(out, f, indent=1)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    rig.common_args(p, check=False)
    p.add_argument("--scenario", required=True)
    p.add_argument("--speed", type=float, default=20)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--work")
    p.add_argument("--keep", action="store_true")
    p.add_argument("--config", default="", help="moonrunnerd YAML configuration text")
    a = p.parse_args()
    out = run(a)
    print(json.dumps(out))
    s = out["session_m"]
    print(f"{a.scenario} @{a.speed:g}x: truth {out['truth_m']:.0f} m  session {s:.1f}  analyze {out['analyze_m']:.1f}  "
          f"gpx {out['gpx_m']:.1f} ({100 * (out['gpx_m'] - s) / s:+.2f} %)  fit {out['fit_last_record_m']}/{out['fit_total_m']}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
