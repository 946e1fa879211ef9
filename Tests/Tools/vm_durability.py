"""vm_check.py's checks of what a recording survives: the watchdog (4), power cuts (5),
a clean power-off (6), and an hour-long session in 512 MB (8).

The GPS is live in 4-6: the host writes the demo walk into the guest's GPS
serial line once a second, each epoch stamped with the host's UTC time as a
receiver's would be, looping, across boots (a power cut does not stop the
satellites). The IMU is the production path: the MPU-6050 driver through the
kernel's i2c-stub. What a cut lost is measured against what was written:
the newest fix written before the cut against the newest point the session
has after the guest has booted again and the daemon has recovered it.

The design's loss window: a commit every `store.commit_interval_s` (2 s) and
at every state change, each synced; a power cut loses at most the fixes
since the last commit (2 s), plus the epoch on its way from gpsd to the
batch (1 s at 1 Hz): 3 s of fixes.
"""
import json
import os
import random
import subprocess
import time

import vm_system
from vm_guest import NMEAFeed

DEMO = vm_system.DEMO
COMMIT_INTERVAL_S = 2.0
LOSS_WINDOW_S = COMMIT_INTERVAL_S + 1.0
# The same window in fixes at 1 Hz: the epochs' host times jitter, so 3 epochs can span 3.02 s.
LOSS_WINDOW_FIXES = 3


def fix_times(ctx, sid):
    """The receiver's times of every fix the session kept (its points and the fixes its filter refused),
    read from the store once the session has ended (the journal is then in the database). They are the
    times the host stamped on the fixes it wrote, so they compare with `NMEAFeed.sent` on one clock;
    the guest's own clock drifts under emulation."""
    out = ctx.guest.ssh("sqlite3 -readonly /var/lib/moonrunner/moonrunner.sqlite "
                        f"'SELECT fix_time FROM point WHERE session_id = {int(sid)} AND fix_time IS NOT NULL "
                        f"UNION SELECT fix_time FROM rejected_fix WHERE session_id = {int(sid)} AND fix_time IS NOT NULL "
                        "ORDER BY 1'").stdout
    return [float(x) for x in out.split()]


def gap_around(times, moment):
    """(last fix kept at or before `moment`, first after it)."""
    before = [t for t in times if t <= moment]
    after = [t for t in times if t > moment]
    return (before[-1] if before else None), (after[0] if after else None)


def live_feed(ctx):
    feed = ctx.facts.get("feed")
    if feed is None or not feed.is_alive():
        feed = NMEAFeed(os.path.join(DEMO, "walk.nmea"), os.path.join(ctx.guest.work, "gps.sock"), period=1.0,
                        clock="now")
        feed.start()
        ctx.facts["feed"] = feed
    return feed


def recording(ctx, activity="run"):
    """The daemon on the I2C bus with the live GPS, a new session started and fixes flowing; its id."""
    live_feed(ctx)
    bus = ctx.i2c_bus or "/dev/i2c-0"
    # Without auto-pause: the looping walk has its standing start, where a paused session keeps no
    # fixes, and a cut there would read as fixes lost.
    ctx.configure(imu=f"i2c:{bus}@0x68", extra="auto_pause:\n  enabled: false\n")
    ctx.wait_status(lambda s: s.get("gps", {}).get("health") == "ok", 180, "GPS fixes in the daemon")
    ctx.guest.ssh("moonrunner stop >/dev/null 2>&1; true")   # a session a failed check left open
    ctx.guest.ssh(f"moonrunner start --activity {activity}")
    st = ctx.wait_status(lambda s: s.get("session") and s.get("distance_m", 0) > 0, 120, "a session with distance")
    return st["session"]


def journal_times(ctx, unit, boot, *words):
    """UTC times of the unit's journal lines of `boot` containing each word (first match of each)."""
    out = ctx.guest.ssh(f"journalctl -b {boot} -u {unit} -o json --no-pager", check=False).stdout
    found = {}
    for line in out.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        message = str(entry.get("MESSAGE", ""))
        for w in words:
            if w in message and w not in found:
                found[w] = int(entry["__REALTIME_TIMESTAMP"]) / 1e6
    return found


# --- 4. Watchdog ---------------------------------------------------------------------------------

def watchdog(check, ctx):
    g = ctx.guest
    sid = recording(ctx)
    time.sleep(10)
    u = ctx.unit("MainPID", "WatchdogUSec", "TimeoutAbortUSec", "RestartUSec", "NRestarts")
    pid = u["MainPID"]
    t_stop = time.time()
    g.ssh(f"kill -STOP {pid}")
    st = ctx.wait_status(lambda s: s.get("session") == sid and s.get("state") in ("recording", "auto_paused")
                         and ctx.unit("MainPID")["MainPID"] not in (pid, "0"), 300, "the daemon restarted by systemd")
    back = time.time()
    time.sleep(8)
    g.ssh("moonrunner stop")
    last, first = gap_around(fix_times(ctx, sid), t_stop)
    gap = (first - last) if last and first else float("inf")
    after_u = ctx.unit("NRestarts", "MainPID")
    seconds = {k: v for k, v in (("watchdog", u["WatchdogUSec"]), ("abort", u["TimeoutAbortUSec"]),
                                 ("restart", u["RestartUSec"]))}
    limit = sum(parse_span(v) for v in seconds.values()) + 30
    fired = journal_times(ctx, "moonrunnerd", 0, "Watchdog timeout", "Started ")
    check.expect(int(after_u["NRestarts"]) > int(u["NRestarts"]) and st.get("session") == sid and gap <= limit,
                 f"4. kill -STOP: systemd's watchdog ({seconds['watchdog']}) killed it and restarted it "
                 f"(NRestarts {u['NRestarts']} -> {after_u['NRestarts']}); session {sid} goes on; "
                 f"{gap:.0f} s of fixes lost (limit: watchdog + abort ({seconds['abort']}) + restart "
                 f"({seconds['restart']}) + 30 s to start under emulation = {limit:.0f} s); "
                 f"answered {back - t_stop:.0f} s after the stop",
                 vm_system.explain(ctx) + json.dumps(fired))


def parse_span(text):
    """systemd's time span ("30s", "2s", "1min 30s", "100ms") in seconds."""
    total = 0.0
    units = {"min": 60, "ms": 0.001, "us": 1e-6, "s": 1, "h": 3600}
    for part in text.split():
        for unit in ("min", "ms", "us", "h", "s"):
            if part.endswith(unit):
                total += float(part[:-len(unit)]) * units[unit]
                break
    return total


# --- 5. Power cuts --------------------------------------------------------------------------------

def integrity(ctx):
    return ctx.guest.ssh("sqlite3 /var/lib/moonrunner/moonrunner.sqlite 'PRAGMA integrity_check'",
                         check=False).stdout.strip()


def readback(ctx, sid):
    """What a finished session reads back as: its stats and its number of points."""
    shown = json.loads(ctx.guest.ssh(f"moonrunner show {sid} --json").stdout)
    return {"stats": shown.get("stats"), "fixes": len(fix_times(ctx, sid))}


def exports_valid(ctx, sid):
    """The session's GPX against the GPX 1.1 schema (xmllint) and its FIT through Garmin's FIT SDK."""
    from garmin_fit_sdk import Decoder, Stream
    g = ctx.guest
    g.ssh(f"moonrunner export {sid} --format gpx -o /tmp/e.gpx && moonrunner export {sid} --format fit -o /tmp/e.fit")
    gpx, fit = os.path.join(ctx.work, "e.gpx"), os.path.join(ctx.work, "e.fit")
    g.get("/tmp/e.gpx", gpx)
    g.get("/tmp/e.fit", fit)
    schema = os.path.join(ctx.schemas, "Topografix_gpx11.xsd")
    xml = subprocess.run(["xmllint", "--noout", "--schema", schema, gpx], capture_output=True, text=True)
    # Two decoders: check_integrity reads the stream to its end.
    intact = Decoder(Stream.from_file(fit)).check_integrity()
    messages, errors = Decoder(Stream.from_file(fit)).read()
    return xml.returncode == 0 and intact and not errors and bool(messages.get("record_mesgs"))


def power_cuts(check, ctx):
    g = ctx.guest
    rng = random.Random(ctx.seed)
    finished = {}
    losses = []
    for k in range(ctx.cuts):
        sid = recording(ctx)
        inside = k % 3 == 1
        time.sleep(rng.uniform(8, 30))
        if inside:
            counters = g.cut_inside_a_write(limit=15)
            how = f"the moment the virtual disk took a write (writes {counters[0] if counters else '?'})"
        else:
            g.power_cut()
            how = "at a random moment"
        t_cut = time.time()
        last_fed = ctx.facts["feed"].last_sent_before(t_cut)
        took = g.boot()
        ok_db = integrity(ctx)
        idle = g.ssh("systemctl is-active moonrunnerd.service", check=False).stdout.strip()
        st = ctx.wait_status(lambda s: s.get("state") not in (None,), 120, "the daemon after the cut")
        g.ssh("moonrunner stop")
        last, _ = gap_around(fix_times(ctx, sid), t_cut)
        lost = (last_fed - last) if last and last_fed else float("inf")
        lost_fixes = ctx.facts["feed"].count_sent_after(last, t_cut) if last else None
        losses.append(lost)
        check.expect(ok_db == "ok" and st.get("session") == sid and lost_fixes is not None
                     and lost_fixes <= LOSS_WINDOW_FIXES,
                     f"5. cut {k + 1} {how}: booted in {took:.0f} s, daemon {idle} until asked, "
                     f"integrity_check {ok_db}, session {sid} recovered ({st.get('state')}), "
                     f"{lost:.1f} s of fixes lost, {lost_fixes} fixes (window {LOSS_WINDOW_S:.0f} s: "
                     f"{LOSS_WINDOW_FIXES} fixes at 1 Hz)", vm_system.explain(ctx))
        finished[sid] = readback(ctx, sid)
        whole = [s for s, fig in finished.items() if readback(ctx, s) == fig]
        valid = [s for s in finished if exports_valid(ctx, s)]
        check.expect(len(whole) == len(finished) and len(valid) == len(finished),
                     f"5. after cut {k + 1}: {len(whole)} of {len(finished)} earlier sessions read back whole, "
                     f"{len(valid)} with valid GPX (schema) and FIT (Garmin's SDK)")
    ctx.facts["power_cut_losses_s"] = losses
    print(f"  power cuts: fixes lost per cut (s): {', '.join(f'{x:.1f}' for x in losses)}", flush=True)


# --- 6. Clean shutdown ------------------------------------------------------------------------------

def clean_poweroff(check, ctx):
    g = ctx.guest
    sid = recording(ctx)
    time.sleep(15)
    t_off = time.time()
    took = g.poweroff()
    g.boot()
    marks = journal_times(ctx, "moonrunnerd", -1, "Stopping ", "Stopped ", "Deactivated")
    stopping = marks.get("Stopping ")
    stopped = marks.get("Stopped ") or marks.get("Deactivated")
    stop_s = (stopped - stopping) if stopping and stopped else float("inf")
    timeout = parse_span(ctx.unit("TimeoutStopUSec")["TimeoutStopUSec"])
    ctx.wait_status(lambda s: s.get("state") is not None, 120, "the daemon after the boot")
    g.ssh("moonrunner stop")
    # Fixes written before the power-off was asked for (on the host's clock, as the fixes are stamped).
    fed = ctx.facts["feed"].last_sent_before(t_off)
    last, _ = gap_around(fix_times(ctx, sid), t_off + took)
    lost = (fed - last) if fed and last else float("inf")
    check.expect(stop_s <= timeout and lost <= 1.5,
                 f"6. systemctl poweroff while recording: the daemon stopped in {stop_s:.1f} s (TimeoutStopSec "
                 f"{timeout:.0f} s), the guest was off in {took:.0f} s; after the next boot session {sid} has "
                 f"every fix up to the stop ({lost:.1f} s between the last written and the last kept)",
                 vm_system.explain(ctx))


# --- 8. Memory ------------------------------------------------------------------------------------------

def memory(check, ctx, speed=10, hours=1.0):
    """An hour-long session replayed at `speed` x with the web app, the announcer and gpsd running."""
    g = ctx.guest
    feed = ctx.facts.pop("feed", None)
    if feed:
        feed.stop()
    g.ssh("systemctl enable --now moonrunner-web.service moonrunner-announce.service", timeout=300)
    ctx.configure(imu=f"replay:/srv/vmcheck/walk-imu.csv.gz,speed={speed},loop")
    epochs = int(hours * 3600)
    start = time.time() - epochs - 600
    feed = NMEAFeed(os.path.join(DEMO, "walk.nmea"), os.path.join(g.work, "gps.sock"), period=1.0 / speed,
                    clock=start)
    feed.start()
    lowest = None
    try:
        ctx.wait_status(lambda s: s.get("gps", {}).get("health") == "ok", 180, "GPS fixes in the daemon")
        g.ssh("moonrunner stop >/dev/null 2>&1; true")
        g.ssh("moonrunner start --activity walk")
        while len(feed.sent) < epochs:
            available = int(g.ssh("awk '/MemAvailable/ {print $2}' /proc/meminfo", check=False).stdout or 0)
            lowest = available if lowest is None else min(lowest, available)
            time.sleep(20)
        st = ctx.status()
        g.ssh("moonrunner stop")
    finally:
        feed.stop()
    end = int(g.ssh("awk '/MemAvailable/ {print $2}' /proc/meminfo").stdout)
    oom = g.ssh("journalctl -k --no-pager | grep -ci 'out of memory\\|oom-kill' || true", check=False).stdout.strip()
    rss = g.ssh("ps -o rss=,comm= -C moonrunnerd,moonrunner-web,moonrunner-anno,gpsd", check=False).stdout.split("\n")
    check.expect(oom == "0" and st.get("elapsed_s", 0) >= 0.9 * epochs,
                 f"8. an hour-long session ({st.get('elapsed_s', 0) / 60:.0f} min, {st.get('distance_m', 0) / 1000:.1f} km "
                 f"at {speed}x) with the web app, the announcer and gpsd in {512} MB: no OOM kill; MemAvailable "
                 f"lowest {lowest / 1024 if lowest else 0:.0f} MB while recording (every 20 s), "
                 f"{end / 1024:.0f} MB after the stop; RSS "
                 + "; ".join(r.strip() for r in rss if r.strip()), vm_system.explain(ctx))
    ctx.facts["mem_available_mb"] = end / 1024


CHECKS = {4: watchdog, 5: power_cuts, 6: clean_poweroff, 8: memory}
