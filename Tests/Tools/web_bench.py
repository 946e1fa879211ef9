#!/usr/bin/env python3
"""The web app's figures, on the release build, against the real daemon.

  live page, transferred on first load (gzip)     <= 60 KB   Chromium's own count (DevTools
                                                             Network.loadingFinished), fresh cache,
                                                             every request of the page but its live stream
  session page of a 10-hour session: server time  <= 250 ms  10-hour sessions written through the real
                                                             store (moonrunner-bench --write-session); the
                                                             page and its 5 pictures to the last byte on
                                                             loopback: the newest session (read by the web app
                                                             when it stopped or when the daemon is reached),
                                                             and an older one at its first view
  daemon transition -> phone DOM                  <= 1.5 s   wall clock before `moonrunner pause|resume`
                                                             to the run screen's state changing in Chromium
                                                             (a MutationObserver), 10 transitions, worst
  moonrunner-web RSS, 5 phones watching           <= 30 MB   VmRSS (and VmHWM) after a minute
  moonrunner-web CPU, 5 phones watching           <= 0.5 %   /proc/PID/stat over 60 s, of one core
  daemon CPU, 20 phones vs none                   unchanged  /proc/PID/stat over 3 x 20 s each; the
                                                             difference within the spread of the windows
                                                             (or 0.2 points of a core)
  export of a 10-hour session, each format        <= 1 s     wall clock of `moonrunner export ID --format F
                                                             -o FILE` (the daemon's ?EXPORT stream and the
                                                             CLI's writer, to the file renamed complete),
                                                             median of 3, on the same stored session

    web_bench.py --bin .build/release [--check] [--window 60]

A "phone watching" for the RSS and CPU figures is a live stream (/live) read
by this script, as a phone's EventSource reads it.
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import rig
import web_stack


def record(targets, name, value, unit, target, ok):
    """One row of the table: the figure, its target and the verdict."""
    print(f"  {name:<46} {value:>10.2f} {unit:<4} target {target:<10} {targets.expect(name, ok)}", flush=True)


def rollup_kb(pid):
    """Pss and private (Private_Clean + Private_Dirty) of a process, kB."""
    values = rig.proc_kb(pid, "smaps_rollup")
    return values.get("Pss", 0), values.get("Private_Clean", 0) + values.get("Private_Dirty", 0)


def rss_kb(pid, key="VmRSS"):
    return rig.proc_kb(pid).get(key, 0)


def get(stack, path, cookie, extra=""):
    """Seconds to the last byte of a GET, the status and the body's size."""
    s = socket.create_connection(("127.0.0.1", stack.port))
    start = time.perf_counter()
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{stack.port}\r\nCookie: {cookie}{extra}\r\n"
              f"Accept: text/html\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n".encode())
    data = rig.read_to_end(s)
    elapsed = time.perf_counter() - start
    return elapsed, int(data.split(b" ", 2)[1]), len(data)


def session_view(stack, cookie, units, session):
    """Seconds for the session page and then its five pictures (fetched at once,
    as a browser does), in all, for the page alone and for the pictures; bytes."""
    start = time.perf_counter()
    page, status, size = get(stack, f"/sessions/{session}", cookie, f"; units={units}")
    if status != 200:
        raise RuntimeError(f"/sessions/{session} answered {status}")
    times = {}

    def fetch(kind):
        times[kind] = get(stack, f"/sessions/{session}/pictures/{kind}", cookie, f"; units={units}")

    threads = [threading.Thread(target=fetch, args=(k,)) for k in ("map", "pace", "elevation", "cadence", "splits")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if any(r[1] != 200 for r in times.values()):
        raise RuntimeError(f"a picture failed: {times}")
    total = time.perf_counter() - start
    return total, page, total - page, size + sum(r[2] for r in times.values())


def daemon_cpu(stack, *args):
    """CPU seconds the daemon spends on one CLI request (median of 3)."""
    spent = []
    for _ in range(3):
        a = rig.cpu_seconds(stack.daemon.pid)
        stack.cli(*args)
        spent.append(rig.cpu_seconds(stack.daemon.pid) - a)
    return statistics.median(spent)


def cpu_percent(pid, seconds):
    a = rig.cpu_seconds(pid)
    time.sleep(seconds)
    return (rig.cpu_seconds(pid) - a) / seconds * 100


def live_page_bytes(stack, cookie):
    """Bytes Chromium transferred for the run screen's first load with an empty cache."""
    driver = web_stack.browser()
    try:
        driver.get(stack.url + "/pair")
        driver.add_cookie({"name": cookie.split("=")[0], "value": cookie.split("=", 1)[1], "path": "/"})
        driver.execute_cdp_cmd("Network.clearBrowserCache", {})
        web_stack.requests_seen(driver)  # empties the log
        driver.get(stack.url + "/")
        time.sleep(2)
        urls, sizes = {}, {}
        for entry in driver.get_log("performance"):
            m = json.loads(entry["message"])["message"]
            p = m.get("params", {})
            if m.get("method") == "Network.requestWillBeSent":
                urls[p["requestId"]] = p["request"]["url"]
            elif m.get("method") == "Network.loadingFinished":
                sizes[p["requestId"]] = p["encodedDataLength"]
        loaded = {urls.get(k, "?"): v for k, v in sizes.items() if not urls.get(k, "").endswith("/live")}
        return sum(loaded.values()), loaded
    finally:
        driver.quit()


def transition_latency(stack, cookie, count):
    """Seconds from a CLI transition to the run screen's state changing, each of `count`."""
    driver = web_stack.browser()
    try:
        driver.get(stack.url + "/pair")
        driver.add_cookie({"name": cookie.split("=")[0], "value": cookie.split("=", 1)[1], "path": "/"})
        driver.get(stack.url + "/")
        rig.wait_for(lambda: driver.execute_script(
            "return document.querySelector('[data-field=state]').dataset.value") == "recording", 15, "recording")
        time.sleep(1.5)
        driver.execute_script("""
            window.__changes = [];
            const pill = document.querySelector('[data-field=state]');
            new MutationObserver(() => window.__changes.push([Date.now(), pill.dataset.value]))
              .observe(pill, {attributes: true, childList: true, characterData: true, subtree: true});""")
        latencies = []
        for k in range(count):
            command, wanted = ("pause", "paused") if k % 2 == 0 else ("resume", "recording")
            t0 = time.time() * 1000
            stack.cli(command)
            rig.wait_for(lambda: any(v == wanted and t >= t0 for t, v in driver.execute_script("return window.__changes")),
                         10, f"the phone to show {wanted}")
            seen = min(t for t, v in driver.execute_script("return window.__changes") if v == wanted and t >= t0)
            latencies.append((seen - t0) / 1000)
            time.sleep(0.7)  # not in step with the STATUS second
        return latencies
    finally:
        driver.quit()


def session_pages(bin_dir, targets):
    """The session page of a 10-hour session, the newest and an older one; seen again; in other units."""
    # The 10-hour session page: a state folder with the session, written through the real store.
    work = tempfile.mkdtemp(prefix="mrweb-bench-")
    state = os.path.join(work, "state")
    # Two 10-hour sessions: 2 is the newest (the web app reads it when it reaches the daemon, as it
    # reads a session the moment it stops), 1 is an older one nobody opened yet.
    for _ in range(2):
        subprocess.run([os.path.join(bin_dir, "moonrunner-bench"), "--write-session", state, "--hours", "10"], check=True,
                       stdout=subprocess.DEVNULL)
    stack = web_stack.Stack(bin_dir, speed=1, work=work, replay=False)
    try:
        cookie = web_stack.pair(stack)
        time.sleep(5)  # the newest session is read meanwhile
        newest = session_view(stack, cookie, "metric", 2)
        record(targets, "session page, 10 h, the newest session (page + 5 pictures)", newest[0] * 1000, "ms", "<= 250",
               newest[0] <= 0.25)
        print(f"    page {newest[1] * 1000:.0f} ms, pictures drawn {newest[2] * 1000:.0f} ms; {newest[3]} bytes gzip")
        older = session_view(stack, cookie, "metric", 1)
        record(targets, "session page, 10 h, an older one, first view", older[0] * 1000, "ms", "<= 250", older[0] <= 0.25)
        print(f"    page {older[1] * 1000:.0f} ms (?SESSION), pictures {older[2] * 1000:.0f} ms (?EXPORT csv, drawing)")
        again = session_view(stack, cookie, "metric", 1)
        other = session_view(stack, cookie, "imperial", 1)
        print(f"    seen again {again[0] * 1000:.0f} ms (kept: page and pictures); in other units {other[0] * 1000:.0f} ms "
              f"(kept session, pictures drawn anew); the daemon's own CPU for one ?SESSION "
              f"{daemon_cpu(stack, 'show', '1', '--json') * 1000:.0f} ms, one CSV ?EXPORT "
              f"{daemon_cpu(stack, 'export', '1', '--format', 'csv') * 1000:.0f} ms")
        export_times(stack, work, targets)
    finally:
        stack.close()


EXPORT_FORMATS = ("gpx", "tcx", "fit", "geojson", "csv", "svg")


def export_times(stack, work, targets):
    """Each format of the older 10-hour session exported through the real CLI, as a runner exports it."""
    for fmt in EXPORT_FORMATS:
        path = os.path.join(work, f"ten-hours.{fmt}")
        spent = []
        for _ in range(3):
            started = time.monotonic()
            stack.cli("export", "1", "--format", fmt, "-o", path)
            spent.append(time.monotonic() - started)
        seconds = statistics.median(spent)
        record(targets, f"export of a 10-hour session, {fmt} ({os.path.getsize(path) // 1024} KB)", seconds * 1000, "ms",
               "<= 1000", seconds <= 1.0)


def live(bin_dir, window, targets):
    """The run screen while the demo walk records: its first load, transitions, and what phones watching cost."""
    # The demo walk, looping at 1x: the session records while the phones watch.
    # No auto-pause: the transitions measured are the CLI's alone.
    stack = web_stack.Stack(bin_dir, speed=1, loop=True, daemon_config="auto_pause:\n  enabled: false\n")
    try:
        cookie = web_stack.pair(stack)
        stack.cli("start", "--activity", "walk")
        total, loaded = live_page_bytes(stack, cookie)
        record(targets, "live page, first load, transferred", total / 1024, "KB", "<= 60", total <= 60 * 1024)
        print("    " + ", ".join(f"{u.replace(stack.url, '')} {n} B" for u, n in loaded.items()))

        latencies = transition_latency(stack, cookie, 10)
        record(targets, "transition -> phone DOM (worst of 10)", max(latencies), "s", "<= 1.5", max(latencies) <= 1.5)
        print(f"    median {statistics.median(latencies):.3f} s, all {[round(x, 3) for x in latencies]}")

        web, daemon = stack.web.pid, stack.daemon.pid
        phones = web_stack.Watchers(stack, cookie, 5)
        time.sleep(5)
        web_cpu = cpu_percent(web, window)
        rss, peak = rss_kb(web) / 1024, rss_kb(web, "VmHWM") / 1024
        pss, private = (v / 1024 for v in rollup_kb(web))
        anon = rss_kb(web, "RssAnon") / 1024
        daemon_rss = rss_kb(daemon) / 1024
        streamed = min(phones.received)
        phones.close()
        record(targets, "moonrunner-web RSS, 5 phones watching", rss, "MB", "<= 30", rss <= 30)
        print(f"    peak (VmHWM) {peak:.1f} MB, its own memory {anon:.1f} MB (RssAnon; private {private:.1f} MB, "
              f"Pss {pss:.1f} MB): the rest is shared library and program code (moonrunnerd beside it: "
              f"{daemon_rss:.1f} MB RSS); each phone received >= {streamed} bytes in {window:.0f} s")
        record(targets, "moonrunner-web CPU, 5 phones watching", web_cpu, "%", "<= 0.5", web_cpu <= 0.5)

        time.sleep(3)
        third = window / 3
        none = [cpu_percent(daemon, third) for _ in range(3)]
        phones = web_stack.Watchers(stack, cookie, 20)
        time.sleep(3)
        twenty = [cpu_percent(daemon, third) for _ in range(3)]
        received = min(phones.received)
        phones.close()
        spread = max(max(none) - min(none), max(twenty) - min(twenty), 0.2)
        diff = statistics.mean(twenty) - statistics.mean(none)
        record(targets, "daemon CPU, 20 phones minus none", diff, "pts", f"|d| <= {spread:.2f}", abs(diff) <= spread)
        print(f"    none {[round(x, 2) for x in none]} %, 20 phones {[round(x, 2) for x in twenty]} % "
              f"(each phone received >= {received} bytes)")
    finally:
        stack.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    rig.common_args(ap, data=False)
    ap.add_argument("--window", type=float, default=60, help="seconds of each CPU window")
    args = ap.parse_args()
    bin_dir = os.path.abspath(args.bin)
    targets = rig.Targets(args.check)
    print("moonrunner-web figures (release build)")
    session_pages(bin_dir, targets)
    live(bin_dir, args.window, targets)
    return targets.report()


if __name__ == "__main__":
    sys.exit(main())
