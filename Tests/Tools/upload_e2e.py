"""moonrunner-upload end to end, lean enough for `make test`.

The real binaries against real peers where they run here and stand-ins
that follow the services' documentation where they cannot: the daemon
records the demo walk (gpsfake); Strava and intervals.icu are
strava_standin.py and intervals_standin.py; the WebDAV folder is a real
wsgidav server; NetworkManager is nm_standin.py on a private system bus.
Each rule is printed with its verdict as it is decided; any that fails exits 1.

The first session waits for the network: nothing is sent while it is down
or on a Wi-Fi that is not listed (a phone's hotspot), and everything goes at
once when the home Wi-Fi is back. What each server stored is read back
against the session: Strava's file is the plain FIT export byte for byte
(its privacy zones are off), intervals.icu's and WebDAV's are the export
less the privacy zone at the start (byte for byte the daemon's `?EXPORT`
with `privacy`), with that many fewer points and a shorter distance.

Faults, each with a new session, each leaving one activity per service,
nothing lost and nothing sent twice: connections dropped before and after
the server took the upload; 500 three times, then accepted; the upload
service killed (SIGKILL) after the POST and before the answer; the daemon
restarted while the queue is worked; a session deleted before it is sent
(never sent); a revoked Strava grant (held: "reconnect Strava" in
`moonrunner upload status`, no more attempts, the other targets go on).

    upload_e2e.py --bin .build/debug
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
import standin_http
import upload_stack
from upload_stack import sha


def counts(stack):
    return {"strava": len(stack.stored("strava")["activities"]), "intervals": len(stack.stored("intervals")["activities"]),
            "webdav": len([f for f in stack.dav_files() if f.endswith(".fit")])}


def settled(stack, session, targets=("strava", "intervals", "webdav"), timeout=60):
    """Waits until the session's jobs of `targets` are finished (not queued, sending or processing)."""
    def done():
        jobs = stack.jobs()
        return all(jobs.get((t, session), {}).get("state") not in (None, "queued", "sending", "processing") for t in targets)
    rig.wait_for(done, timeout, f"session {session}'s uploads")
    return stack.jobs()


def main_session(stack, c, args):
    """The first session: held by the network, then sent at once, then read back against the session."""
    a = stack.record(240)
    gpx = rig.cli(args.bin, stack.sock, "export", str(a), "--format", "gpx", "-o", "-", check=True).stdout
    first = gpx.split("<trkpt ", 1)[1]
    lat, lon = (float(first.split(f'{k}="', 1)[1].split('"', 1)[0]) for k in ("lat", "lon"))
    zone = [{"lat": lat, "lon": lon, "radius_m": 100}]
    stack.network("down")
    stack.start_upload(stack.upload_config(zone))
    stack.connect_strava()
    stack.ask('?SETUP={"target":"intervals","fields":{"athlete_id":"i42","api_key":"k3y"}};')
    stack.ask('?SETUP={"target":"webdav","fields":{"user":"runner","password":"s3cret"}};')
    targets = stack.ask("?TARGETS;")
    c.expect(all(t["state"] == "connected" for t in targets["targets"] if t["target"] != "fittrackee"),
             "Strava (through its OAuth grant), intervals.icu and WebDAV are connected", targets)
    c.expect(not any(v for t in targets["targets"] for k, v in t.items() if k == "fields_set" and "s3cret" in json.dumps(t)),
             "no secret comes back out of the upload socket")
    time.sleep(1.5)
    c.expect(counts(stack) == {"strava": 0, "intervals": 0, "webdav": 0} and not targets["network_allows"],
             "with the network down nothing is sent", counts(stack))
    stack.network("up phone-hotspot")
    time.sleep(1.5)
    c.expect(counts(stack) == {"strava": 0, "intervals": 0, "webdav": 0},
             "on a Wi-Fi that is not listed (the phone's hotspot) nothing is sent", counts(stack))
    t0 = time.monotonic()
    stack.network("up home")
    jobs = settled(stack, a)
    took = time.monotonic() - t0
    c.expect(all(jobs[(t, a)]["state"] == "done" for t in ("strava", "intervals", "webdav")),
             f"back on the home Wi-Fi every target has the session ({took:.1f} s from the network's return)",
             {k: v["state"] for k, v in jobs.items()})
    print(json.dumps({"network_return_to_uploaded_s": round(took, 2)}))
    plain, private = upload_stack.export(stack.sock, a), upload_stack.export(stack.sock, a, privacy=[[lat, lon, 100]])
    strava, intervals = stack.stored("strava")["activities"], stack.stored("intervals")["activities"]
    c.expect(len(strava) == 1 and strava[0]["sha256"] == sha(plain),
             "Strava holds the session's FIT export byte for byte (its zones are off)")
    c.expect(len(intervals) == 1 and intervals[0]["sha256"] == sha(private) and sha(private) != sha(plain),
             "intervals.icu holds the export less the privacy zone, byte for byte the daemon's ?EXPORT with privacy")
    dav = stack.dav_files()
    dav_data = open(os.path.join(stack.dav_root, "runs", dav[0]), "rb").read() if dav else b""
    c.expect(len(dav) == 1 and sha(dav_data) == sha(private), "the WebDAV folder holds the same file once", dav)
    show = stack.show(a)
    full = standin_http.fit_summary(plain)
    c.expect(abs(strava[0]["session_distance_m"] - show["stats"]["distance_m"]) < 0.5 and strava[0]["points"] == show["points"]
             and abs(strava[0]["elapsed_s"] - show["stats"]["elapsed_s"]) < 1.5,
             "Strava's copy has the session's distance, points and time",
             (strava[0]["session_distance_m"], show["stats"]["distance_m"], strava[0]["points"], show["points"]))
    c.expect(intervals[0]["points"] < full["points"] and intervals[0]["session_distance_m"] < full["session_distance_m"] - 50
             and abs(intervals[0]["session_distance_m"] - intervals[0]["distance_m"]) < 0.5,
             "intervals.icu's copy is shorter by the zone: fewer points, less distance, totals of what was sent",
             (intervals[0]["points"], full["points"], intervals[0]["session_distance_m"], full["session_distance_m"]))
    return a


def fault(stack, c, name, orders, during=None):
    """A new session under `orders` (per stand-in): one activity more on each server, all jobs done."""
    before = counts(stack)
    for target, spec in orders.items():
        stack.fault(target, spec)
    s = stack.record(20)
    if during:
        during(s)
    jobs = settled(stack, s, timeout=90)
    after = counts(stack)
    states = {t: jobs[(t, s)]["state"] for t in ("strava", "intervals", "webdav")}
    c.expect(all(v == "done" for v in states.values()) and all(after[t] == before[t] + 1 for t in after),
             f"{name}: each server has one activity more, every job done", (states, before, after))
    for target in orders:
        stack.fault(target, {"fail": [], "drop_before": 0, "drop_after": 0, "slow": 0})
    return s, jobs


def faults(stack, c, args):
    # The fault sessions start wherever the looped walk is, often inside the first session's zone:
    # without zones each gives one activity per server (a session wholly inside one is sent nowhere).
    stack.kill_upload()
    stack.start_upload(stack.upload_config([]))
    fault(stack, c, "connections dropped before and after the server took the upload",
          {"strava": {"drop_before": 1}, "intervals": {"drop_after": 1}})
    s, jobs = fault(stack, c, "500 three times, then accepted", {"strava": {"fail": [500, 500, 500]},
                                                                 "intervals": {"fail": [500, 500, 500]}})
    c.expect(jobs[("intervals", s)]["attempts"] == 4, "the fourth attempt was the one accepted", jobs[("intervals", s)])

    def kill_after_post(s):
        before = len(stack.stored("intervals")["activities"])
        rig.wait_for(lambda: len(stack.stored("intervals")["activities"]) > before, 30, "the POST to reach intervals.icu")
        stack.kill_upload()
        stack.fault("intervals", {"slow": 0})
        stack.fault("strava", {"slow": 0})
        stack.start_upload(open(os.path.join(stack.work, "upload.yaml")).read())
    fault(stack, c, "the upload service killed after the POST and before the answer",
          {"intervals": {"slow": 4}, "strava": {"slow": 4}}, during=kill_after_post)
    fault(stack, c, "the daemon restarted while the queue is worked", {"strava": {"slow": 2}, "intervals": {"slow": 2}},
          during=lambda s: stack.restart_daemon())

    stack.network("down")
    before = counts(stack)
    gone = stack.record(15)
    rig.wait_for(lambda: all((t, gone) in stack.jobs() for t in ("strava", "intervals", "webdav")), 30,
                 f"session {gone} queued while the network is down")
    rig.cli(args.bin, stack.sock, "delete", str(gone), check=True)
    stack.network("up home")
    jobs = settled(stack, gone)
    time.sleep(1)
    c.expect(all(jobs[(t, gone)]["state"] == "deleted" for t in ("strava", "intervals", "webdav")) and counts(stack) == before,
             "a session deleted before it was sent is never sent", {k: v["state"] for k, v in jobs.items() if k[1] == gone})

    stack.fault("strava", {"revoke": True})
    s = stack.record(15)
    jobs = settled(stack, s)
    status = rig.cli(args.bin, stack.sock, "upload", "status", "--upload-socket", stack.upload_sock).stdout
    c.expect(jobs[("strava", s)]["state"] == "held" and jobs[("intervals", s)]["state"] == "done"
             and "reconnect Strava" in status, "a revoked Strava grant holds Strava's jobs and says \"reconnect Strava\"",
             status)
    tries = jobs[("strava", s)]["attempts"]
    time.sleep(2)
    c.expect(stack.jobs()[("strava", s)]["attempts"] == tries, "and nothing more is tried until it is reconnected")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bin", required=True)
    p.add_argument("--keep", action="store_true", help="keep the work folder")
    args = p.parse_args()
    c = rig.Checks(sys.stderr)
    dav = upload_stack.wsgidav()
    if not os.path.exists(dav) or subprocess.run([os.path.join(os.path.dirname(dav), "python3"), "-c", "import cheroot"],
                                                 capture_output=True).returncode != 0:
        rig.skip("upload_e2e.py: wsgidav or cheroot is missing (make deps installs them)")
        return 0
    work = tempfile.mkdtemp(prefix="upload-e2e-")
    stack = None
    started = time.monotonic()
    try:
        stack = upload_stack.Stack(args.bin, work)
        stack.standins()
        stack.network_manager()
        main_session(stack, c, args)
        faults(stack, c, args)
    finally:
        if stack:
            stack.close()
        if not args.keep and not c.failed:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"work folder kept: {work}", file=sys.stderr)
    print(f"upload end to end: {time.monotonic() - started:.0f} s", file=sys.stderr)
    print(f"{c.passed} passed, {len(c.failed)} failed")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
