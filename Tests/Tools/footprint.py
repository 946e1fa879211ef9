#!/usr/bin/env python3
"""What moonrunnerd costs a Pi: installed size and memory (issue 11).

Installs the binaries as `make install` does (stripped, into a scratch DESTDIR),
reports their sizes and the shared Swift libraries they need (which a dynamic
build expects to find on the system, a `--static-swift-stdlib` one carries),
then runs the daemon recording a session at 1x (gpsfake replaying the bundled
walk, the emulated IMU at 100 Hz) and reads /proc/PID/status after `--seconds`:
VmRSS, and its anonymous and file-backed parts.

    footprint.py --bin .build/release [--seconds 60]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "Tests", "Fixtures", "demo")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from replay_rig import end_gpsfake, free_port, start_gpsfake, stop_daemon, wait_for  # noqa: E402


def swift_libraries(binary):
    """Shared libraries of the Swift toolchain the binary loads, and their total size."""
    out = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
    libs = []
    for line in out.splitlines():
        m = re.search(r"=> (\S+)", line)
        if m and ("swift" in m.group(1) or "Foundation" in m.group(1) or "dispatch" in m.group(1)
                  or "BlocksRuntime" in m.group(1)):
            libs.append(os.path.realpath(m.group(1)))
    return libs, sum(os.path.getsize(p) for p in set(libs))


def status_kb(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "RssAnon", "RssFile"):
                fields[k] = int(v.split()[0])
    return fields


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", required=True)
    p.add_argument("--seconds", type=float, default=60)
    a = p.parse_args()
    work = tempfile.mkdtemp(prefix="mr-footprint-")
    try:
        installed = {}
        for name in ("moonrunnerd", "moonrunner", "moonrunner-announce"):
            src = os.path.join(a.bin, name)
            if not os.path.exists(src):
                continue
            dst = os.path.join(work, name)
            subprocess.run(["install", "-s", "-m", "0755", src, dst], check=True)
            installed[name] = (os.path.getsize(src), os.path.getsize(dst))
        libs, lib_bytes = swift_libraries(os.path.join(work, "moonrunnerd"))
        for name, (before, after) in installed.items():
            print(f"{name:<20} {before / 1e6:6.1f} MB unstripped, {after / 1e6:6.1f} MB installed (stripped)")
        print(f"Swift libraries moonrunnerd loads from the system: {len(set(libs))}, {lib_bytes / 1e6:.1f} MB"
              + ("" if libs else " (a static build carries them)"))

        gps_port = free_port()
        sock = os.path.join(work, "mr.sock")
        daemon = subprocess.Popen([os.path.join(work, "moonrunnerd"), "--state-dir", os.path.join(work, "state"),
                                   "--socket", sock, "--gpsd", f"127.0.0.1:{gps_port}",
                                   "--imu", f"replay:{os.path.join(DEMO, 'walk-imu.csv.gz')},loop"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        truth = json.load(open(os.path.join(DEMO, "walk.truth.json")))
        gpsfake = start_gpsfake(os.path.join(DEMO, "walk.nmea"), gps_port, work,
                                1 / truth["nmea_sentences_per_epoch"])
        try:
            wait_for(lambda: os.path.exists(sock), 15, "moonrunnerd's socket")
            subprocess.run([os.path.join(work, "moonrunner"), "--socket", sock, "start", "--activity", "walk"],
                           check=True, capture_output=True)
            time.sleep(a.seconds)
            rss = status_kb(daemon.pid)
            print(f"moonrunnerd recording at 1x after {a.seconds:.0f} s: RSS {rss['VmRSS'] / 1024:.1f} MB "
                  f"(anonymous {rss['RssAnon'] / 1024:.1f} MB, file-backed {rss['RssFile'] / 1024:.1f} MB)")
        finally:
            stop_daemon(daemon)
            end_gpsfake(gpsfake)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
