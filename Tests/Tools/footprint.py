#!/usr/bin/env python3
"""What moonrunnerd costs a Pi Zero 2 W (512 MB): size, memory, start-up.

1. Binary sizes: each shipped executable unstripped and stripped (as the
   package installs it), whether it carries ICU's data, and, with --deb-dir,
   the .deb's size and Installed-Size. Targets: .deb <= 25 MB, Installed-Size
   <= 90 MB.
2. Start to READY=1: the daemon started as systemd would (NOTIFY_SOCKET), the
   time from exec to its READY=1, over --starts starts on an empty state
   folder. Target <= 1 s.
3. Pss after --minutes recorded minutes (1 Hz GPS, 100 Hz IMU): gpsfake
   replaying the bundled walk and the emulated IMU replaying its trace, both
   at --speed x, the real CLI starting a session; /proc/PID/smaps_rollup read
   once the session's own clock has --minutes on it. A replay at N x delivers
   the same fixes and samples as real time, N times sooner, and the store's
   commit and consolidation intervals (wall-clock seconds) are divided by N:
   what the daemon keeps per recorded minute (track, steps, the journal not
   yet in the database) is what it keeps at 1x. Target Pss <= 20 MB.
   The same again with four 1" terrain tiles (.hgt, 26 MB each) in
   elevation.dem_dir, one of them under the walk, and again with the same four
   as GLO-30 GeoTIFFs (DEFLATE, decoded block by block into the daemon's
   cache as the walk comes near them): the Pss each adds (target: at most
   1 MB).
4. Growth over a long session: the walk repeated (each copy's times shifted
   on) to --hours recorded hours at --growth-speed x with --watchers watchers
   attached; anonymous memory (Pss_Anon) sampled every recorded 30 minutes and
   its slope fitted over hours 1 to the end (the first hour holds the start-up
   and the store's warm-up). Target <= 0.3 MB per recorded hour.

    footprint.py --bin .build/release [--deb-dir .build/deb] [--minutes 10] [--speed 10]
                 [--hours 6] [--growth-speed 30] [--watchers 8] [--check]
"""
import argparse
import math
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import rig
import trace_files

# What the package ships as files (moonrunner-announce is a link to moonrunner).
SHIPPED = ("moonrunnerd", "moonrunner")
TARGETS = {"pss_mb": 20.0, "growth_mb_per_h": 0.3, "ready_s": 1.0, "deb_mb": 25.0, "installed_mb": 90.0,
           "terrain_pss_mb": 1.0}


def sizes(bin_dir, deb_dir, work):
    """Each shipped binary's size unstripped and stripped, and the package's."""
    figures = {}
    for name in SHIPPED:
        src = os.path.join(bin_dir, name)
        if not os.path.exists(src):
            continue
        dst = os.path.join(work, name + ".stripped")
        subprocess.run(["install", "-s", "-m", "0755", src, dst], check=True)
        icu = "icudt" in subprocess.run(["nm", "--defined-only", src], capture_output=True, text=True).stdout
        figures[name] = (os.path.getsize(src), os.path.getsize(dst))
        print(f"{name:<20} {os.path.getsize(src) / 1e6:6.1f} MB unstripped, {os.path.getsize(dst) / 1e6:6.1f} MB "
              f"stripped{'  (carries ICU data)' if icu else ''}")
    print(f"{'shipped, stripped':<20} {sum(s for _, s in figures.values()) / 1e6:6.1f} MB "
          "(moonrunner-announce is a link to moonrunner)")
    debs = sorted(f for f in os.listdir(deb_dir) if re.match(r"moonrunner_.*\.deb$", f)) if deb_dir and \
        os.path.isdir(deb_dir) else []
    if not debs:
        return None, None
    deb = os.path.join(deb_dir, debs[-1])
    installed_kib = int(subprocess.run(["dpkg-deb", "-f", deb, "Installed-Size"], capture_output=True, text=True,
                                       check=True).stdout)
    print(f"{debs[-1]}: {os.path.getsize(deb) / 1e6:.1f} MB; Installed-Size {installed_kib} KiB "
          f"({installed_kib * 1024 / 1e6:.1f} MB)")
    return os.path.getsize(deb) / 1e6, installed_kib * 1024 / 1e6


def ready_seconds(bin_dir, work, starts):
    """Exec to READY=1 on NOTIFY_SOCKET, as systemd measures a Type=notify service."""
    times = []
    for i in range(starts):
        path = os.path.join(work, f"notify-{i}.sock")
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(path)
        notify.settimeout(10)
        state = os.path.join(work, f"ready-state-{i}")
        t0 = time.monotonic()
        daemon = rig.start_daemon(bin_dir, os.path.join(work, f"ready-{i}.sock"), state, rig.free_port(),
                                  rig.demo_imu(loop=True), env=dict(os.environ, NOTIFY_SOCKET=path), wait=None)
        try:
            while True:
                message = notify.recv(4096).decode()
                if "READY=1" in message.split("\n"):
                    times.append(time.monotonic() - t0)
                    break
        finally:
            rig.stop_daemon(daemon)
            notify.close()
    print(f"start to READY=1: median {statistics.median(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms "
          f"over {starts} starts (empty state folder)")
    return max(times)


def memory(pid):
    """kB figures from smaps_rollup (Pss and its anonymous/file parts) and status (RssAnon, threads)."""
    rollup, status = rig.proc_kb(pid, "smaps_rollup"), rig.proc_kb(pid)
    return {**{k: v for k, v in rollup.items() if k in ("Rss", "Pss", "Pss_Anon", "Pss_File", "Pss_Shmem", "Anonymous")},
            **{k: v for k, v in status.items() if k in ("RssAnon", "RssFile", "Threads")}}


def mb(kb):
    return kb / 1024


def pss_after(a, work, dem=None):
    """The daemon's Pss (MB) once a session has --minutes recorded minutes on its clock (with the
    terrain tiles of folder `dem`, else none)."""
    os.makedirs(work, exist_ok=True)  # gpsfake's TMPDIR
    # The whole binary in the page cache first: the kernel maps code around each page that runs
    # only where the page cache has it (fault-around), so without this the file-backed Pss
    # depends on what ran before (2 MB apart between runs here).
    with open(os.path.join(a.bin, "moonrunnerd"), "rb") as f:
        while f.read(1 << 20):
            pass
    run = rig.Recording(a.bin, work, os.path.join(rig.DEMO, "walk.nmea"), a.speed, 0,
                        config=f"elevation:\n  dem_dir: \"{dem or ''}\"\n")
    try:
        run.wait_recorded(a.minutes * 60, a.minutes * 60 / a.speed * 3 + 60)
        m = memory(run.daemon.pid)
        source = rig.status(a.bin, run.sock)["altitude_source"]
    finally:
        run.close()
    print(f"moonrunnerd after {a.minutes:g} recorded min at {a.speed:g}x"
          f"{' with 4 terrain tiles (' + os.path.basename(dem) + ', altitude ' + source + ')' if dem else ''}: Pss {mb(m['Pss']):.1f} MB "
          f"(anonymous {mb(m['Pss_Anon']):.1f}, file-backed {mb(m['Pss_File']):.1f}), "
          f"Rss {mb(m['Rss']):.1f} MB, {m['Threads']} threads")
    return mb(m["Pss"])


def growth(a, work):
    """Anonymous memory's growth (MB per recorded hour) over hours 1 to --hours of a long session."""
    long_work = os.path.join(work, "long")
    os.makedirs(long_work)
    nmea = trace_files.repeated_walk(long_work, int(a.hours * 3600 / 1000) + 2)
    run = rig.Recording(a.bin, long_work, nmea, a.growth_speed, a.watchers)
    samples = []
    try:
        step = 1800
        for k in range(0, int(a.hours * 3600 / step) + 1):
            run.wait_recorded(max(k * step, 60), step / a.growth_speed * 4 + 120)
            m = memory(run.daemon.pid)
            samples.append((run.recorded_s() / 3600, m["Pss_Anon"], m["Pss"]))
            journal = os.path.getsize(os.path.join(run.state, "moonrunner.journal"))
            print(f"  {samples[-1][0]:5.2f} h recorded: Pss_Anon {mb(m['Pss_Anon']):6.2f} MB, "
                  f"Pss {mb(m['Pss']):6.2f} MB, {m['Threads']} threads, journal {journal / 1e6:.2f} MB",
                  flush=True)
    finally:
        run.close()
    late = [s for s in samples if s[0] >= 1]
    slope = fit_slope([s[0] for s in late], [mb(s[1]) for s in late])
    early = (mb(samples[1][1]) - mb(samples[0][1])) / (samples[1][0] - samples[0][0]) if len(samples) > 1 \
        else float("nan")
    print(f"anonymous memory growth with {a.watchers} watchers at {a.growth_speed:g}x: "
          f"{slope:.3f} MB per recorded hour over hours 1-{a.hours:g} "
          f"(first half hour: {early:.2f} MB/h, start-up included)")
    return slope


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    rig.common_args(p, data=False)
    p.add_argument("--deb-dir", help="where `make deb` put the package (its size is reported when there)")
    p.add_argument("--minutes", type=float, default=10, help="recorded minutes before Pss is read")
    p.add_argument("--speed", type=float, default=10)
    p.add_argument("--hours", type=float, default=6, help="recorded hours of the long session (0: skip)")
    p.add_argument("--growth-speed", type=float, default=30)
    p.add_argument("--watchers", type=int, default=8)
    p.add_argument("--starts", type=int, default=5)
    a = p.parse_args()
    work = tempfile.mkdtemp(prefix="mr-footprint-")
    targets = rig.Targets(a.check)
    try:
        deb_mb, installed_mb = sizes(a.bin, a.deb_dir, work)
        if deb_mb is not None:
            targets.expect(f".deb {deb_mb:.1f} MB > {TARGETS['deb_mb']} MB", not deb_mb > TARGETS["deb_mb"])
        if installed_mb is not None:
            targets.expect(f"Installed-Size {installed_mb:.1f} MB > {TARGETS['installed_mb']} MB",
                           not installed_mb > TARGETS["installed_mb"])
        ready = ready_seconds(a.bin, work, a.starts)
        targets.expect(f"READY=1 after {ready:.2f} s > {TARGETS['ready_s']} s", not ready > TARGETS["ready_s"])
        pss = pss_after(a, work)
        targets.expect(f"Pss {pss:.1f} MB > {TARGETS['pss_mb']} MB", not pss > TARGETS["pss_mb"])
        for kind, make in ((".hgt", rig.demo_tiles), ("GeoTIFF", rig.demo_geotiffs)):
            folder = os.path.join(work, "dem-" + kind.strip("."))
            terrain = pss_after(a, os.path.join(work, "terrain-" + kind.strip(".")), dem=make(folder)) - pss
            print(f"Pss added by the {kind} terrain tiles: {terrain:+.2f} MB")
            targets.expect(f"{kind} terrain tiles add {terrain:.2f} MB of Pss > {TARGETS['terrain_pss_mb']} MB",
                           not terrain > TARGETS["terrain_pss_mb"])
        if a.hours > 0:
            slope = growth(a, work)
            targets.expect(f"growth {slope:.3f} MB/h > {TARGETS['growth_mb_per_h']} MB/h",
                           not slope > TARGETS["growth_mb_per_h"])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return targets.report()


def fit_slope(xs, ys):
    """Least-squares slope of ys over xs."""
    if len(xs) < 2:
        return float("nan")
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


if __name__ == "__main__":
    sys.exit(main())
