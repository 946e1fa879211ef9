#!/usr/bin/env python3
"""What a user sees, kept byte for byte across changes that must not change it.

A refactor promises that nothing a user sees changes. This tool
holds it to that: it runs the commands whose output a user or a peer reads and
compares a SHA-256 of each output with the digest stored in
`Tests/Fixtures/output-digest.json`:

  * `moonrunner analyze --json` in every mode on every shared trace: each IMU
    trace alone (steps); each GPS trace alone, with `--track` (the written
    track); each simulated run with its barometer trace (`--baro`); each real
    run with its heart-rate trace (`--hr`); each planned course in each of its
    formats over its run (`--course`);
  * the daemon's replies over a recorded session: `moonrunnerd` started on a
    copy of `Tests/Fixtures/recorded/` (the state folder `make run` leaves: the
    demo walk recorded live, following its course) answers `?SESSIONS`,
    `?SESSION`, `?EXPORT` in every format, `?BADGES`, `?COURSES`, `?COURSE`,
    an idle `?STATUS` and `?CONFIG` (their volatile members masked: the
    wall clock, the temporary paths and ports, the sensors' reconnection state) and a handful of malformed requests;
    and the CLI's text for the same (`show`, `sessions`, `badges`, `course
    show`).

A change that means to change an output (a new field, a better figure) runs
it with `--update` and says so in its commit; `--dump DIR` writes every output
to DIR, so two builds can be compared with `diff -r`.

    output_digest.py --bin .build/release [--data ../shared/data] [--update] [--dump DIR] [--jobs N]

Exits 1 when an output differs from its digest (each one named), 0 when all
agree. A trace the digest names that is missing from --data is reported and
fails; when the whole data folder is absent the analyze part says SKIP loudly.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import rig

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIGEST = os.path.join(ROOT, "Tests/Fixtures/output-digest.json")
RECORDED = os.path.join(ROOT, "Tests/Fixtures/recorded")
EXPORT_FORMATS = ["gpx", "tcx", "fit", "geojson", "csv", "svg"]


class Daemon:
    """moonrunnerd on a copy of the recorded state folder, no GPS and no IMU attached."""

    def __init__(self, bin_dir, work):
        self.state = os.path.join(work, "state")
        shutil.copytree(RECORDED, self.state)
        self.sock = os.path.join(work, "mr.sock")
        self.work = work
        closed = rig.free_port()  # nothing listens there: the GPS stays lost
        self.proc = subprocess.Popen(
            [os.path.join(bin_dir, "moonrunnerd"), "--state-dir", self.state, "--socket", self.sock,
             "--gpsd", f"127.0.0.1:{closed}", "--imu", "i2c:/dev/i2c-250@0x68", "--log-level", "error"],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "daemon.log"), "w"))
        rig.wait_for(lambda: os.path.exists(self.sock), 30, "the daemon's socket")

    def requests(self, lines):
        """Sends the lines on one connection; the replies as bytes (the greeting first)."""
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(30)
        s.connect(self.sock)
        s.sendall("".join(l + "\n" for l in lines).encode())
        s.shutdown(socket.SHUT_WR)
        return rig.read_to_end(s)

    def stop(self):
        rig.stop_daemon(self.proc)


# Members that differ from run to run by nature: the wall clock, the free port the absent gpsd
# was given, and how far the sensors' reconnection attempts have got by the time of asking.
VOLATILE = rb'"(time|port|age_s|last_[a-z_]*|uptime_s|since|connects|health|bus_errors|reinitializations|fifo_resets)":'


def mask(text, work):
    """The outputs with the temporary folder and the volatile members' values replaced by placeholders."""
    text = text.replace(work.encode(), b"$WORK")
    return re.sub(VOLATILE + rb'("[^"]*"|[^,}]*)', rb'"\1":"*"', text)


def daemon_cases(bin_dir):
    """(name, output) of the daemon's replies and the CLI's text over the recorded session."""
    out = []
    work = tempfile.mkdtemp(prefix="mr-digest-")
    daemon = Daemon(bin_dir, work)
    try:
        sessions = json.loads(daemon.requests(["?SESSIONS;"]).splitlines()[1])["sessions"]
        courses = json.loads(daemon.requests(["?COURSES;"]).splitlines()[1])["courses"]
        sid = sessions[0]["id"]
        cid = courses[0]["id"] if courses else 1
        requests = {
            "sessions": ['?SESSIONS;', '?SESSIONS={"limit":1};'],
            "session": [f'?SESSION={{"id":{sid}}};'],
            "badges": ['?BADGES;'],
            "courses": ['?COURSES;', f'?COURSE={{"id":{cid}}};'],
            "status-idle": ['?STATUS;'],
            "config": ['?CONFIG;', '?VERSION;'],
            "malformed": ['?NOPE;', '?SESSION={"id":99999};', f'?EXPORT={{"id":{sid},"format":"doc"}};',
                          '?SESSION={"id":', '?START={"activity":"swim"};', '?PAUSE;', '?STOP={"x":1};',
                          'STATUS', '?SESSIONS={"limit":"many"};', '?COURSE_DELETE;'],
        }
        for fmt in EXPORT_FORMATS:
            requests[f"export-{fmt}"] = [f'?EXPORT={{"id":{sid},"format":"{fmt}"}};']
        for name, lines in requests.items():
            out.append((f"daemon/{name}", mask(daemon.requests(lines), work)))
        cli = [os.path.join(bin_dir, "moonrunner"), "--socket", daemon.sock]
        for name, args in (("show", ["show", str(sid)]), ("show-imperial", ["--imperial", "show", str(sid)]),
                           ("sessions", ["sessions"]), ("badges", ["badges"]),
                           ("course-list", ["course", "list"]), ("course-show", ["course", "show", str(cid)])):
            res = subprocess.run(cli + args, capture_output=True, timeout=60)
            out.append((f"cli/{name}", mask(res.stdout + f"\n[exit {res.returncode}]\n".encode(), work)))
    finally:
        daemon.stop()
        shutil.rmtree(work, ignore_errors=True)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", required=True, help="the build folder (moonrunner, moonrunnerd)")
    p.add_argument("--data", default=os.path.join(ROOT, "../shared/data"))
    p.add_argument("--update", action="store_true", help="store the outputs' digests as the new reference")
    p.add_argument("--dump", help="write every output to this folder")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    a = p.parse_args()
    cli = os.path.join(a.bin, "moonrunner")
    t0 = time.monotonic()

    outputs = {}
    if os.path.isdir(a.data):
        cases = rig.analyze_cases(a.data)
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
            for (name, _), result in zip(cases, pool.map(lambda c: rig.analyze_output(cli, c[1]), cases)):
                outputs[name] = result
    else:
        print(f"SKIP analyze: no data folder at {a.data} (the shared data is not part of the repository)")
    outputs.update(daemon_cases(a.bin))

    if a.dump:
        for name, data in outputs.items():
            path = os.path.join(a.dump, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
    digests = {name: hashlib.sha256(data).hexdigest() for name, data in sorted(outputs.items())}
    if a.update:
        with open(DIGEST, "w") as f:
            json.dump(digests, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"stored {len(digests)} digests in {os.path.relpath(DIGEST, ROOT)} ({time.monotonic() - t0:.0f} s)")
        return 0
    with open(DIGEST) as f:
        stored = json.load(f)
    changed = [n for n in sorted(digests) if n in stored and stored[n] != digests[n]]
    new = [n for n in sorted(digests) if n not in stored]
    analyze_ran = os.path.isdir(a.data)
    missing = [n for n in sorted(stored) if n not in digests and (analyze_ran or n.split("/")[0] in ("daemon", "cli"))]
    for n in changed:
        print(f"DIFFERS  {n}")
    for n in missing:
        print(f"MISSING  {n} (in the digest, not produced)")
    for n in new:
        print(f"NEW      {n} (not in the digest: run with --update if it is meant)")
    same = len(digests) - len(changed) - len(new)
    print(f"output digest: {same} of {len(digests)} outputs byte-identical to the stored digest, "
          f"{len(changed)} differ, {len(missing)} missing, {len(new)} new ({time.monotonic() - t0:.0f} s)")
    return 1 if changed or missing or new else 0


if __name__ == "__main__":
    sys.exit(main())
