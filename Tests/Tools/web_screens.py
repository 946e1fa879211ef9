#!/usr/bin/env python3
"""A PNG of every page of the web app, light and dark, English and Chinese, at a
phone's size (390 px wide, the whole page), for people to look at.

The real stack (web_stack.py) replays the demo walk: a phone pairs, uploads
the walk's course, follows it for a while (pause, lap), stops; then every
page is captured, and last the daemon is stopped to capture what a phone
shows when it is not running. Needs fonts-noto-cjk for the Chinese pages.

Workouts (when the binaries have `moonrunner workout`): a short workout is
added in the text form and run; the library, the run screen in an effort
step with its target band, and the session with its per-step table.

Uploads (when they have `moonrunner upload`, and wsgidav is there: make
deps): moonrunner-upload with the Strava and intervals.icu stand-ins and a
real WebDAV server (upload_stack.py); the uploads page with nothing
connected, with Strava's client entered ("Connect Strava"), then, each target
connected through the page (Strava through its OAuth grant), the sessions
sent (one refused by intervals.icu: failed) and one waiting for the network;
last the page without the service.

    web_screens.py --bin .build/release --out .build/web-screens

Writes OUT/NAME-LANG-THEME.png and prints the list.
"""
import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import rig
import upload_stack
import web_stack

# Its first step ends soon; an effort long enough (about 30 s at --speed 20) for the run screen's shots.
WORKOUT = "1m easy; 2x(800m @10:00-13:00/km, 30s rest); 1m easy"


def has_command(bin_dir, name):
    """Whether the CLI has `moonrunner NAME` (an unknown one prints the top help and exits 0)."""
    r = subprocess.run([os.path.join(bin_dir, "moonrunner"), name, "--help"], capture_output=True, text=True, timeout=30)
    return r.returncode == 0 and f"USAGE: moonrunner {name}" in r.stdout


def uploads_missing(bin_dir):
    """Why the uploads cannot be captured, or None."""
    if not has_command(bin_dir, "upload"):
        return "the binaries have no uploads (`moonrunner upload --help`)"
    dav = upload_stack.wsgidav()
    if not os.path.exists(dav) or subprocess.run([os.path.join(os.path.dirname(dav), "python3"), "-c", "import cheroot"],
                                                 capture_output=True).returncode != 0:
        return "wsgidav or cheroot is missing (make deps installs them)"
    return None


def capture(driver, path):
    """The whole page, not only the viewport."""
    height = driver.execute_script("return Math.max(document.documentElement.scrollHeight, document.body.scrollHeight)")
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": web_stack.PHONE[0], "height": max(height, web_stack.PHONE[1]), "scale": 1},
    })
    with open(path, "wb") as f:
        f.write(base64.b64decode(shot["data"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    rig.common_args(ap, data=False, check=False)
    ap.add_argument("--out", default=".build/web-screens")
    ap.add_argument("--speed", type=float, default=20)
    args = ap.parse_args()
    from selenium.webdriver.common.by import By

    started = time.monotonic()
    shutil.rmtree(args.out, ignore_errors=True)
    os.makedirs(args.out)
    workouts = has_command(args.bin, "workout")
    no_uploads = uploads_missing(args.bin)
    skipped = []
    if not workouts:
        skipped.append("workouts: the binaries have no workouts (`moonrunner workout --help`)")
    if no_uploads:
        skipped.append("uploads: " + no_uploads)
    work = tempfile.mkdtemp(prefix="mrweb-")
    # The uploads page asks moonrunner-upload where upload_stack.py puts its socket.
    stack = web_stack.Stack(args.bin, speed=args.speed, loop=True, work=work,
                            upload_socket=None if no_uploads else os.path.join(work, "upload", "upload.sock"))
    driver = web_stack.browser()
    written = []
    uploader = None

    def shots(name, url=None, before=None):
        for lang in ("en", "zh"):
            driver.delete_cookie("lang")
            driver.add_cookie({"name": "lang", "value": lang, "path": "/"})
            for theme in ("light", "dark"):
                driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                                       {"features": [{"name": "prefers-color-scheme", "value": theme}]})
                if url:
                    driver.get(stack.url + url)
                if before:
                    before()
                time.sleep(0.3)
                path = os.path.join(args.out, f"{name}-{lang}-{theme}.png")
                capture(driver, path)
                written.append(path)

    try:
        driver.get(stack.url + "/pair")
        shots("pair-unpaired", "/pair")
        link = stack.pairing()["urls"][0]
        driver.get(link)
        driver.find_element(By.CSS_SELECTOR, 'form[action="/pair"] button').click()
        rig.wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "[data-live]"), 10, "the run screen")
        shots("live-idle", "/")

        driver.get(stack.url + "/courses")
        driver.find_element(By.CSS_SELECTOR, 'input[type="file"]').send_keys(os.path.join(rig.DEMO, "walk.course.gpx"))
        driver.find_element(By.CSS_SELECTOR, '[data-action="upload"]').click()
        rig.wait_for(lambda: "added=" in driver.current_url, 15, "the upload")
        course = json.loads(stack.cli("course", "list", "--json"))["courses"][0]["id"]
        driver.find_element(By.CSS_SELECTOR, f'[data-action="follow"][data-course="{course}"]').click()
        rig.wait_for(lambda: stack.status()["state"] == "recording", 10, "recording")
        rig.wait_for(lambda: stack.status()["distance_m"] > 150, 60, "150 m walked")
        stack.cli("lap")
        rig.wait_for(lambda: stack.status()["distance_m"] > 350, 60, "350 m walked")
        shots("live-recording", "/", before=lambda: time.sleep(1.2))
        stack.cli("pause")
        shots("live-paused", "/", before=lambda: time.sleep(1.2))
        stack.cli("resume")
        rig.wait_for(lambda: stack.status()["distance_m"] > 1050, 120, "1050 m walked (a badge)")
        stack.cli("stop")
        session = stack.status()["session"]
        shots("session", f"/sessions/{session}")
        shots("history", "/sessions")
        shots("courses", "/courses")
        shots("course", f"/courses/{course}")
        shots("badges", "/badges")
        shots("settings", "/settings")

        sessions = [session]
        if workouts:
            sessions.append(workout_screens(stack, shots))
        if not no_uploads:
            uploader = upload_stack.Stack(stack.bin, stack.work, sock=stack.socket)
            upload_screens(stack, uploader, driver, shots, sessions)

        def daemon_goes():
            # The run screen open while the daemon stops: it says so and waits for it.
            if stack.daemon is None:
                stack.start_daemon()
            driver.get(stack.url + "/")
            time.sleep(1.2)
            stack.stop_daemon()
            rig.wait_for(lambda: driver.find_element(By.CSS_SELECTOR, "[data-banner]").is_displayed(), 15, "the banner")

        shots("live-daemon-down", before=daemon_goes)
        shots("history-daemon-down", "/sessions")
    finally:
        driver.quit()
        if uploader:
            uploader.close()
        stack.close()
    for p in written:
        print(p)
    for why in skipped:
        print(f"# SKIP web_screens: {why}")
    print(f"{len(written)} screens in {time.monotonic() - started:.0f} s")
    shutil.rmtree(stack.work, ignore_errors=True)
    return 0


def workout_screens(stack, shots):
    """The library, the run screen in an effort step (its target band), the session's per-step table."""
    stack.cli("workout", "add", "--name", "Intervals", "--text", WORKOUT)
    workout = json.loads(stack.cli("workout", "list", "--json"))["workouts"][0]["id"]
    shots("workouts", "/workouts")
    stack.cli("start", "--activity", "walk", "--workout", str(workout))

    def effort():
        w = stack.status().get("workout") or {}
        step = w.get("step") or {}
        # The first effort, with most of it left (metres) for the four shots.
        return step.get("target") is not None and (w.get("remaining") or 0) > 450
    rig.wait_for(effort, 120, "the workout's first effort step")
    before = stack.status()["workout"]["step"]["index"]
    shots("live-workout", "/", before=lambda: time.sleep(1.2))
    after = (stack.status().get("workout") or {}).get("step", {}).get("index")
    if after != before:
        print(f"note: the workout moved from step {before} to {after} during the run screen's shots", file=sys.stderr)
    rig.wait_for(lambda: not stack.status().get("workout"), 240, "the workout's end")
    stack.cli("stop")
    session = stack.status()["session"]
    shots("session-workout", f"/sessions/{session}")
    return session


def upload_screens(stack, up, driver, shots, sessions):
    """moonrunner-upload (upload_stack.py) with its stand-ins; each target connected through the uploads page."""
    from selenium.webdriver.common.by import By

    up.standins()
    up.network_manager()  # NetworkManager's stand-in starts with the network down: nothing is sent yet
    gpx = stack.cli("export", str(sessions[0]), "--format", "gpx", "-o", "-").decode()
    first = gpx.split("<trkpt ", 1)[1]
    lat, lon = (float(first.split(f'{k}="', 1)[1].split('"', 1)[0]) for k in ("lat", "lon"))
    up.start_upload(up.upload_config([{"lat": lat, "lon": lon, "radius_m": 100}]))
    shots("uploads-setup", "/uploads")

    def target(key):
        return next(t for t in up.ask("?TARGETS;")["targets"] if t["target"] == key)

    def setup(key, fields):
        driver.get(stack.url + "/uploads")
        li = driver.find_element(By.CSS_SELECTOR, f'li[data-target="{key}"]')
        for name, value in fields.items():
            li.find_element(By.CSS_SELECTOR, f'input[name="{name}"]').send_keys(value)
        li.find_element(By.CSS_SELECTOR, f'[data-action="setup-{key}"]').click()
        rig.wait_for(lambda: set(fields) <= set(target(key).get("fields_set") or ()), 15, f"{key}'s fields saved")

    def connected(key):
        rig.wait_for(lambda: target(key)["state"] == "connected", 15, f"{key} connected")

    setup("strava", {"client_id": "12345", "client_secret": "s3cret"})
    shots("uploads-connect", "/uploads")
    driver.get(stack.url + "/uploads")
    driver.find_element(By.CSS_SELECTOR, '[data-action="connect-strava"]').click()  # to the stand-in's grant and back
    connected("strava")
    setup("intervals", {"athlete_id": "i42", "api_key": "k3y"})
    connected("intervals")
    setup("webdav", {"user": "runner", "password": "s3cret"})
    connected("webdav")

    up.fault("intervals", {"fail": [400]})  # intervals.icu refuses the first file: failed, not tried again by itself
    up.network("up home")

    def settled():
        # A newly connected target gets the newest finished session (docs/uploads.md), not the older ones.
        jobs = up.jobs()
        return (all((t, sessions[-1]) in jobs for t in ("strava", "intervals", "webdav"))
                and all(j["state"] not in ("queued", "sending", "processing") for j in jobs.values()))
    try:
        rig.wait_for(settled, 90, "the sessions uploaded")
    except RuntimeError as e:
        raise RuntimeError(f"{e}: {sorted(up.jobs().items())}") from None
    up.network("down")
    stack.cli("start", "--activity", "walk")
    rig.wait_for(lambda: stack.status().get("elapsed_s", 0) >= 20, 60, "20 s recorded")
    stack.cli("stop")
    waiting = stack.status()["session"]
    rig.wait_for(lambda: any(s == waiting for _, s in up.jobs()), 30, f"session {waiting} queued")
    states = sorted({j["state"] for j in up.jobs().values()})
    print(f"uploads: job states {states}", file=sys.stderr)
    shots("uploads", "/uploads")
    up.kill_upload()
    shots("uploads-service-down", "/uploads")


if __name__ == "__main__":
    sys.exit(main())
