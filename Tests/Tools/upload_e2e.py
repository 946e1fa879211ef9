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
(never sent); sessions stopped right after the daemon restarted; a
revoked Strava grant (held: "reconnect Strava" in `moonrunner upload
status`, no more attempts, the other targets go on).

The CLI (`moonrunner upload setup|targets|retry|status|again`) is run as a
person types it, and two announcers (English, Mandarin) watch the upload
socket: each session that reaches a target is said once per target, an
"upload again" not a second time.

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
    stack.start_announcers()
    stack.connect_strava()
    setup = [stack.upload_cli("setup", "intervals", stdin="athlete_id=i42\napi_key=k3y\n"),
             stack.upload_cli("setup", "webdav", stdin="user=runner\npassword=s3cret\n")]
    c.expect(all(r.returncode == 0 for r in setup) and "intervals.icu  connected" in setup[0].stdout
             and "WebDAV         connected" in setup[1].stdout and not any("s3cret" in r.stdout or "k3y" in r.stdout for r in setup),
             "moonrunner upload setup reads the fields from standard input, connects the target, prints no secret",
             [(r.returncode, r.stdout, r.stderr) for r in setup])
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
    want = {lang: sorted(by.values()) for lang, by in SENTENCES.items()}
    try:
        rig.wait_for(lambda: all(sum(said_counts(stack)[lang].values()) >= 3 for lang in want), 30, "the announcers")
    except RuntimeError:
        pass
    for lang, sentences in want.items():
        got = sorted(t for t in stack.said(lang) if t in sentences)
        c.expect(got == sentences, f"the announcer ({lang}) says each target's upload once: " + " / ".join(sentences), got)
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
    table_row(name, stack, s, jobs, before, after)
    for target in orders:
        stack.fault(target, {"fail": [], "drop_before": 0, "drop_after": 0, "slow": 0})
    return s, jobs


def table_row(fault, stack, s, jobs, before, after):
    """One line of the fault table: per target the job's end, its attempts and the activities the server gained."""
    print(json.dumps({"fault": fault, "session": s, "targets": {
        t: {"state": jobs.get((t, s), {}).get("state"), "attempts": jobs.get((t, s), {}).get("attempts"),
            "activities_added": after[t] - before[t]} for t in ("strava", "intervals", "webdav")}}, ensure_ascii=False))


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
    table_row("session deleted before it is sent", stack, gone, jobs, before, counts(stack))



def revoked(stack, c, args):
    """A revoked Strava grant: held, "reconnect Strava", no more attempts; the other targets go on."""
    stack.fault("strava", {"revoke": True})
    before = counts(stack)
    s = stack.record(15)
    jobs = settled(stack, s)
    table_row("Strava grant revoked", stack, s, jobs, before, counts(stack))
    status = rig.cli(args.bin, stack.sock, "upload", "status", "--upload-socket", stack.upload_sock).stdout
    c.expect(jobs[("strava", s)]["state"] == "held" and jobs[("intervals", s)]["state"] == "done"
             and "reconnect Strava" in status, "a revoked Strava grant holds Strava's jobs and says \"reconnect Strava\"",
             status)
    tries = jobs[("strava", s)]["attempts"]
    time.sleep(2)
    c.expect(stack.jobs()[("strava", s)]["attempts"] == tries, "and nothing more is tried until it is reconnected")


def cli_commands(stack, c, args):
    """`moonrunner upload retry|status|again|targets` with the real CLI against the real service and stand-ins."""
    r = stack.upload_cli("targets")
    c.expect(r.returncode == 0 and all(f"{t} connected" in r.stdout for t in ("Strava        ", "intervals.icu ", "WebDAV        "))
             and "FitTrackee     not connected" in r.stdout, "moonrunner upload targets shows each target's connection", r.stdout)
    before = counts(stack)
    stack.fault("intervals", {"fail": [400]})
    s = stack.record(15)
    jobs = settled(stack, s)
    c.expect(jobs[("intervals", s)]["state"] == "failed" and jobs[("intervals", s)]["attempts"] == 1
             and counts(stack)["intervals"] == before["intervals"],
             "a file intervals.icu refuses (400) fails its job, which is not tried again by itself", jobs[("intervals", s)])
    before_retry = said_counts(stack)
    r = stack.upload_cli("retry", "--target", "intervals", "--session", str(s))
    c.expect(r.returncode == 0 and r.stdout.strip() == "1 upload(s) to try now",
             "moonrunner upload retry --target intervals --session S queues that job, and only it", (r.returncode, r.stdout, r.stderr))
    jobs = settled(stack, s)
    after = counts(stack)
    c.expect(jobs[("intervals", s)]["state"] == "done" and after["intervals"] == before["intervals"] + 1
             and after["strava"] == before["strava"] + 1 and after["webdav"] == before["webdav"] + 1,
             "the retried job is sent once: one activity more on intervals.icu, none more elsewhere", (before, after))
    r = stack.upload_cli("status", "--session", str(s))
    link = jobs[("intervals", s)]["url"]
    c.expect(r.returncode == 0 and any(line.split()[:4] == [str(s), "intervals.icu", "done", "2"] and line.endswith(link)
                                       for line in r.stdout.splitlines()),
             "moonrunner upload status --session S shows the job done after 2 tries, with the activity's link", r.stdout)
    # The announcers say in order: once the retried upload is said, everything before it is.
    try:
        rig.wait_for(lambda: all(said_counts(stack)[lang]["intervals"] > n["intervals"] for lang, n in before_retry.items()),
                     30, "the retried upload said")
    except RuntimeError:
        pass
    mark = said_counts(stack)
    c.expect(all(mark[lang]["intervals"] == n["intervals"] + 1 for lang, n in before_retry.items()),
             "the announcers say the retried upload once it is done (its failure was not said)", (before_retry, mark))
    r = stack.upload_cli("again", "intervals", str(s))
    c.expect(r.returncode == 0 and r.stdout.strip() == f"session {s} queued for intervals.icu again",
             "moonrunner upload again intervals S queues the session again", (r.returncode, r.stdout, r.stderr))
    rig.wait_for(lambda: counts(stack)["intervals"] == after["intervals"] + 1 and
                 stack.jobs()[("intervals", s)]["state"] == "done", 30, "the session sent again")
    again = stack.jobs()[("intervals", s)]
    c.expect(again["url"] != link and counts(stack)["intervals"] == after["intervals"] + 1,
             "sent again, intervals.icu has a second activity and the job links to it", (link, again["url"]))
    r = stack.upload_cli("status", "--json")
    replies = [json.loads(line) for line in r.stdout.splitlines()]
    c.expect(r.returncode == 0 and [x["class"] for x in replies] == ["TARGETS", "UPLOADS"]
             and any(j["session"] == s and j["target"] == "intervals" for j in replies[1]["jobs"]),
             "moonrunner upload status --json prints the service's TARGETS and UPLOADS replies as they are", r.stdout[:200])
    r = stack.upload_cli("retry", "--target", "nosuch")
    c.expect(r.returncode == 1 and "unknown target nosuch" in r.stderr, "an unknown target is refused with exit 1 and its name",
             (r.returncode, r.stderr))
    r = stack.upload_cli("setup", "intervals", stdin="token=x\n")
    c.expect(r.returncode == 1 and "takes api_key, athlete_id, not token" in r.stderr,
             "moonrunner upload setup refuses a field the target does not take", (r.returncode, r.stderr))
    r = stack.upload_cli("status", sock=os.path.join(stack.work, "nothing.sock"))
    c.expect(r.returncode == 69 and "moonrunner-upload is not running" in r.stderr,
             "without the service, moonrunner upload status exits 69 and says how to start it", (r.returncode, r.stderr))
    return mark


PEER = """
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.settimeout(10); s.connect(sys.argv[1]); f = s.makefile("rwb"); f.readline()
for line in sys.argv[2:]:
    f.write(line.encode() + b"\\n"); f.flush(); print(json.loads(f.readline())["class"])
"""


def read_only_peers(stack, c):
    """A peer outside upload.admin_group (nobody, let through the socket's modes for the test) may watch and read,
    as the announcer does, and is refused what changes anything."""
    os.chmod(stack.work, 0o711)
    os.chmod(os.path.dirname(stack.upload_sock), 0o711)
    os.chmod(stack.upload_sock, 0o666)
    r = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", sys.executable, "-c", PEER,
                        stack.upload_sock, "?UPLOADS;", "?WATCH;"], capture_output=True, text=True, timeout=30)
    c.expect(r.stdout.split() == ["UPLOADS", "WATCHING"], "a peer outside upload.admin_group may read the ledger and watch",
             (r.returncode, r.stdout, r.stderr))
    r = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", sys.executable, "-c", PEER,
                        stack.upload_sock, "?RETRY;"], capture_output=True, text=True, timeout=30)
    c.expect(r.stdout.split() == ["ERROR"], "and is refused a retry (forbidden)", (r.returncode, r.stdout, r.stderr))


def stop_after_restart(stack, c, args, times):
    """Sessions recording while the daemon restarts, stopped as soon as it answers again: each is queued and
    sent at once (the watch catches up only once it is in place), not at the 5-minute catch-up."""
    took = []
    for _ in range(times):
        before = counts(stack)
        rig.cli(args.bin, stack.sock, "start", "--activity", "walk", check=True)
        rig.wait_for(lambda: (rig.status(args.bin, stack.sock) or {}).get("elapsed_s", 0) >= 5, 60, "5 s recorded")
        stack.restart_daemon()
        rig.cli(args.bin, stack.sock, "stop", check=True)
        s = rig.status(args.bin, stack.sock)["session"]
        t0 = time.monotonic()
        try:
            settled(stack, s, timeout=30)
        except RuntimeError:
            pass
        took.append(round(time.monotonic() - t0, 1))
        jobs = stack.jobs()
        table_row("session stopped right after the daemon restarted", stack, s, jobs, before, counts(stack))
        c.expect(all(jobs.get((t, s), {}).get("state") == "done" for t in ("strava", "intervals", "webdav"))
                 and all(counts(stack)[t] == before[t] + 1 for t in before),
                 f"session {s}, stopped right after the daemon restarted, is on every target once ({took[-1]} s after the stop)",
                 {t: jobs.get((t, s), {}).get("state") for t in ("strava", "intervals", "webdav")})


SENTENCES = {"en": {"strava": "Walk uploaded to Strava.", "intervals": "Walk uploaded to intervals.icu.",
                    "webdav": "Walk uploaded to the WebDAV folder."},
             "cmn": {"strava": "步行已上传到斯特拉瓦。", "intervals": "步行已上传到训练分析网站。",
                     "webdav": "步行已上传到网络文件夹。"}}


def said_counts(stack):
    """How often each language's announcer has said each target's upload."""
    return {lang: {t: stack.said(lang).count(text) for t, text in by.items()} for lang, by in SENTENCES.items()}


def said_once(stack, c, mark, sessions):
    """From `mark` on (just before an "upload again"), each session that reached a target is said once per target:
    `sessions` counts them (Strava's last one is held: not said); the upload sent again is not said twice."""
    want = {lang: {t: mark[lang][t] + sessions[t] for t in by} for lang, by in mark.items()}
    try:
        rig.wait_for(lambda: all(said_counts(stack)[lang][t] >= n for lang, by in want.items() for t, n in by.items()),
                     30, "the announcers")
    except RuntimeError:
        pass
    got = said_counts(stack)
    c.expect(got == want, f"each upload is said once per session and target in English and Mandarin, an upload again "
             f"not at all ({sum(want['en'].values())} sentences each)", {"said": got, "expected": want})


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
        mark = cli_commands(stack, c, args)
        read_only_peers(stack, c)
        stop_after_restart(stack, c, args, times=3)
        revoked(stack, c, args)
        said_once(stack, c, mark, {"strava": 3, "intervals": 4, "webdav": 4})
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
