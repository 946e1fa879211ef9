#!/usr/bin/env python3
"""The order of moonrunnerd's functions in its binary (Pss on a Pi Zero 2 W).

The kernel maps a program's code 64 KB or more at a time around each page it
runs (fault-around, large page-cache folios), so a daemon that runs a few
thousand functions scattered over its 25 MB of code keeps most of that code
resident: 16 MB of it, over half its Pss. Put together, the functions it runs
fit in a few megabytes.

Which functions run is measured, not guessed: the release daemon runs under
function_trace.py (a one-shot breakpoint on every function of its binary)
while it records a session as footprint.py has it do (gpsfake, the IMU replay,
the store's commits and consolidations, two watchers, the CLI's requests, a
lap, a pause, the session stopped and exported), once with GPS altitude, once
over four .hgt terrain tiles and once over the same as GeoTIFFs (the
terrain's code scattered cost 2 MB of Pss). The functions that ran, in
the order they first ran, are the ordering file the release link gives lld
(--symbol-ordering-file); the others keep their place after them. A stale
list costs Pss, never correctness: a name no longer in the binary is skipped.

    text_order.py --bin .build/release --out build/moonrunnerd.order [--minutes 10] [--speed 10]

`make text-order` runs it; the list is kept in git so that a build needs no
profile run, and is made again when the daemon's code changes much.
"""
import argparse
import os
import shutil
import stat
import tempfile
import time

import rig

TRACER = os.path.join(rig.HERE, "function_trace.py")


def traced_bin(bin_dir, work, out):
    """A folder whose moonrunnerd runs the real one under function_trace.py (rig.Recording
    starts `moonrunnerd` and `moonrunner` from one folder)."""
    folder = os.path.join(work, "bin")
    os.makedirs(folder)
    os.symlink(os.path.abspath(os.path.join(bin_dir, "moonrunner")), os.path.join(folder, "moonrunner"))
    wrapper = os.path.join(folder, "moonrunnerd")
    with open(wrapper, "w") as f:
        f.write(f"#!/bin/sh\nexec python3 {TRACER} --out {out} -- "
                f"{os.path.abspath(os.path.join(bin_dir, 'moonrunnerd'))} \"$@\"\n")
    os.chmod(wrapper, stat.S_IRWXU)
    return folder


def record(a, work, config):
    """The functions the traced daemon ran while it recorded one session, in the order they first ran."""
    os.makedirs(work)
    trace = os.path.join(work, "functions.txt")
    run = rig.Recording(traced_bin(a.bin, work, trace), work, os.path.join(rig.DEMO, "walk.nmea"), a.speed, 2,
                        config=config)
    try:
        run.wait_recorded(a.minutes * 60, a.minutes * 60 / a.speed * 3 + 60)
        for request in (("status",), ("status", "--json"), ("sessions",), ("lap",), ("pause",), ("resume",),
                        ("stop",), ("show", "1"), ("export", "1", "--format", "gpx")):
            run.cli(*request)
        time.sleep(1)
    finally:
        run.close()
    return open(trace).read().split()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    rig.common_args(p, data=False, check=False)
    p.add_argument("--out", required=True)
    p.add_argument("--minutes", type=float, default=10)
    p.add_argument("--speed", type=float, default=10)
    a = p.parse_args()
    work = tempfile.mkdtemp(prefix="mr-text-order-")
    try:
        # Three sessions: the plain one (GPS altitude), then one over .hgt tiles and one over
        # GeoTIFF tiles (footprint.py measures all three); the functions in the order they first
        # ran, the first session's first.
        dem = rig.demo_tiles(os.path.join(work, "dem"))
        tiffs = rig.demo_geotiffs(os.path.join(work, "dem-tiff"))
        names, seen = [], set()
        for k, folder in enumerate(("", dem, tiffs)):
            for n in record(a, os.path.join(work, str(k)), f"elevation:\n  dem_dir: \"{folder}\"\n"):
                if n not in seen:
                    seen.add(n)
                    names.append(n)
        os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
        with open(a.out, "w") as f:
            f.write("\n".join(names) + "\n")
        print(f"{len(names)} functions ran; written to {a.out}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
