#!/usr/bin/env python3
"""The web app in a real browser: Chromium at a phone's size against the real
daemon replaying the demo walk through gpsfake (web_stack.py).

What a runner does, checked as it happens:
  * pair with the code `moonrunner web pair` prints (the link it prints);
  * upload the walk's course GPX from the courses page and start following it;
  * the run screen shows the course's next cue (arrow, kind, distance) as STATUS says it;
  * watch distance and time advance without a reload (the page is the same
    document throughout: a marker set on it survives);
  * pause, resume, lap, stop (through the stop confirmation), each seen on
    the run screen;
  * the session page's figures equal `moonrunner show --json` (every
    data-field's data-value against the reply member it names);
  * the downloaded GPX is byte for byte `moonrunner export --format gpx`;
  * switch to 中文 and imperial on the settings page;
  * a revoked phone is out at once (its live page leaves for the pairing page);
  * no console errors, and no request leaves 127.0.0.1 (DevTools performance log).

    web_browser.py --bin .build/debug [--speed 20] [--keep]

Exits 1 when a check fails, naming it. About a minute at 20x.
"""
import argparse
import json
import os
import shutil
import sys
import time

import rig
import web_stack

def field(driver, key):
    from selenium.webdriver.common.by import By
    el = driver.find_element(By.CSS_SELECTOR, f'[data-live] [data-field="{key}"]')
    return el.text, el.get_attribute("data-value")


def click(driver, selector):
    from selenium.webdriver.common.by import By
    el = driver.find_element(By.CSS_SELECTOR, selector)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", el)
    el.click()


def submit(driver, selector):
    """Clicks a control that POSTs a form and waits for the page it leads to."""
    driver.execute_script("window.__before = 1")
    click(driver, selector)
    wait_for(lambda: driver.execute_script("return window.__before === undefined && document.readyState === 'complete'"),
             15, "the next page")


def wait_for(cond, timeout, what):
    try:
        rig.wait_for(cond, timeout, what)
        return True
    except RuntimeError:
        return False


def same_value(page, reply):
    """A data-value against the reply member: numbers equal to 1e-9 (relative), text exactly."""
    if reply is None:
        return page == ""
    if isinstance(reply, bool):
        return page == ("true" if reply else "false")
    if isinstance(reply, (int, float)):
        try:
            return abs(float(page) - reply) <= 1e-9 * max(1.0, abs(reply))
        except ValueError:
            return False
    return page == str(reply)


def member(obj, path):
    for part in path.split("."):
        if not isinstance(obj, dict) or part not in obj:
            return KeyError
        obj = obj[part]
    return obj


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    rig.common_args(ap, data=False, check=False, build="debug")
    ap.add_argument("--speed", type=float, default=20)
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    args = ap.parse_args()
    from selenium.webdriver.common.by import By

    c = rig.Checks()
    stack = web_stack.Stack(args.bin, speed=args.speed)
    downloads = os.path.join(stack.work, "downloads")
    os.makedirs(downloads)
    driver = None
    started = time.monotonic()
    try:
        driver = web_stack.browser(downloads)
        print(f"web app at {stack.url}, work in {stack.work}")

        # Unpaired: the pairing page only.
        driver.get(stack.url + "/")
        c.expect("/pair" in driver.page_source and driver.find_elements(By.NAME, "code"), "an unpaired phone sees the pairing form")
        unpaired = web_stack.console_errors(driver)
        c.expect(all("401" in e.get("message", "") for e in unpaired), "its only console message is the page's own 401")
        urls = web_stack.requests_seen(driver)

        # Pair with the printed link.
        pairing = stack.pairing()
        link = pairing["urls"][0]
        c.expect(link.startswith(stack.url + "/pair?code="), f"the printed link is this web app's: {link}")
        driver.get(link)
        driver.find_element(By.NAME, "name").clear()
        driver.find_element(By.NAME, "name").send_keys("test phone")
        submit(driver, 'form[action="/pair"] button')
        c.expect(wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "[data-live]"), 10, "the run screen"),
              "pairing leads to the run screen")
        devices = json.loads(stack.web_cli("devices", "--json"))["devices"]
        c.expect([d["name"] for d in devices] == ["test phone"], "moonrunner web devices lists the phone")

        # Upload the course from the phone and follow it.
        driver.get(stack.url + "/courses")
        driver.find_element(By.CSS_SELECTOR, 'input[type="file"]').send_keys(os.path.join(rig.DEMO, "walk.course.gpx"))
        submit(driver, '[data-action="upload"]')
        wait_for(lambda: "added=" in driver.current_url, 15, "the upload")
        courses = json.loads(stack.cli("course", "list", "--json"))["courses"]
        c.expect(len(courses) == 1 and courses[0]["name"] in driver.page_source, "the uploaded GPX is a course of the daemon")
        submit(driver, f'[data-action="follow"][data-course="{courses[0]["id"]}"]')
        c.expect(wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "[data-live]"), 10, "the run screen"),
              "following a course goes to the run screen")
        c.expect(wait_for(lambda: field(driver, "state")[1] == "recording", 10, "recording"), "the session records")
        c.expect(wait_for(lambda: driver.find_element(By.CSS_SELECTOR, '[data-if="course"]').is_displayed(), 10, "the course"),
              "the course block shows while following")
        c.expect(field(driver, "course.name")[0] == courses[0]["name"], "it names the course")

        # Live: the same document, figures advancing.
        driver.execute_script("window.__sameDocument = 42")
        t0 = float(field(driver, "elapsed_s")[1] or 0)
        d0 = float(field(driver, "distance_m")[1] or 0)
        c.expect(wait_for(lambda: float(field(driver, "elapsed_s")[1] or 0) >= t0 + 3, 15, "time to advance"),
              "the time advances without a reload")
        c.expect(wait_for(lambda: float(field(driver, "distance_m")[1] or 0) > d0 + 5, 30, "distance to advance"),
              "the distance advances without a reload")
        c.expect(driver.execute_script("return window.__sameDocument") == 42, "no reload happened meanwhile")

        # The next cue of the course: an arrow, its distance and its words, as STATUS says it.
        def cue_agrees():
            cue = (stack.status().get("course") or {}).get("next_cue")
            if not cue or not driver.find_element(By.CSS_SELECTOR, '[data-if="cue"]').is_displayed():
                return False
            kind, metres = field(driver, "course.next_cue.kind"), field(driver, "course.next_cue.distance_m")
            return kind[1] == cue["kind"] and kind[0] != "" and metres[0].endswith(" m") and float(metres[1]) >= 0
        c.expect(wait_for(cue_agrees, 30, "the next cue"),
                 "the run screen shows the next cue of the course: its arrow, its kind as STATUS says it, its distance")

        # The controls.
        submit(driver, '[data-action="pause"]')
        c.expect(wait_for(lambda: field(driver, "state")[1] == "paused", 10, "paused"), "pause: the run screen says paused")
        c.expect(stack.status()["state"] == "paused", "pause: the daemon is paused")
        submit(driver, '[data-action="resume"]')
        c.expect(wait_for(lambda: field(driver, "state")[1] == "recording", 10, "recording"), "resume: recording again")
        submit(driver, '[data-action="lap"]')
        c.expect(wait_for(lambda: field(driver, "laps")[1] == "1", 10, "a lap"), "lap: the lap count is 1")
        click(driver, '[data-action="stop"]')
        submit(driver, '[data-action="stop-confirm"]')
        c.expect(wait_for(lambda: field(driver, "state")[1] == "stopped", 10, "stopped"), "stop, confirmed: finished")
        session = stack.status()["session"]

        errors = web_stack.console_errors(driver)
        c.expect(not errors, f"no console errors while paired {errors[:3]}")
        urls += web_stack.requests_seen(driver)

        # The daemon restarts: the page says so, and shows the truth again once it is back.
        stack.stop_daemon()
        banner = lambda: driver.find_element(By.CSS_SELECTOR, "[data-banner]")
        c.expect(wait_for(lambda: banner().is_displayed() and "not running" in banner().text, 15, "the banner"),
              "the daemon stopping is said on the page")
        stack.start_daemon()
        c.expect(wait_for(lambda: not banner().is_displayed() and field(driver, "state")[1] == stack.status()["state"], 15,
                       "the truth again"), "the daemon back: the banner goes and the state is the daemon's again")
        # The Wi-Fi drops (the web app is gone for a moment): said, and recovered by the browser itself.
        stack.stop_web()
        c.expect(wait_for(lambda: banner().is_displayed() and "lost" in banner().text, 15, "the banner"),
              "the connection dropping is said on the page")
        stack.start_web()
        c.expect(wait_for(lambda: not banner().is_displayed(), 20, "the reconnection"), "and it reconnects by itself")
        # While the web app was gone the browser could not reach it: those are the only errors.
        outage = [e for e in web_stack.console_errors(driver)
                  if not any(k in e.get("message", "") for k in ("/live", "/ping", "ERR_CONNECTION_REFUSED"))]
        c.expect(not outage, f"while the web app was gone, only its live stream and check failed {outage[:3]}")

        # A transition made elsewhere reaches the phone (a second start through the CLI, stopped again).
        # The session page's figures are `moonrunner show --json`.
        driver.get(f"{stack.url}/sessions/{session}")
        show = json.loads(stack.cli("show", str(session), "--json"))
        fields = driver.execute_script(
            "return Array.from(document.querySelectorAll('[data-field][data-value]'))"
            ".map(e => [e.dataset.field, e.dataset.value])")
        wrong = [(k, v, member(show, k)) for k, v in fields if not same_value(v, member(show, k))]
        c.expect(len(fields) >= 12 and not wrong, f"the session page's {len(fields)} figures equal moonrunner show --json"
              + (f" (differ: {wrong})" if wrong else ""))
        pictures = lambda: driver.execute_script(
            "return Array.from(document.querySelectorAll('img[data-picture]')).map(i => i.complete && i.naturalWidth > 0)")
        c.expect(wait_for(lambda: len(pictures()) == 5 and all(pictures()), 15, "the pictures"),
              "the session page shows its route, pace, elevation, cadence and split pictures")

        # The downloaded GPX is the CLI's export.
        click(driver, f'a[href="/sessions/{session}/export.gpx"]')
        gpx = os.path.join(downloads, f"moonrunner-{session}.gpx")
        wait_for(lambda: os.path.exists(gpx) and not os.path.exists(gpx + ".crdownload") and os.path.getsize(gpx) > 0, 20,
                 "the download")
        exported = stack.cli("export", str(session), "--format", "gpx")
        c.expect(os.path.exists(gpx) and open(gpx, "rb").read() == exported,
              f"the downloaded GPX is byte for byte moonrunner export ({len(exported)} bytes)")

        # History, badges: they render.
        for path in ("/sessions", "/badges"):
            driver.get(stack.url + path)
            c.expect(str(session) in driver.page_source or path == "/badges", f"{path} renders")

        # 中文 and imperial.
        driver.get(stack.url + "/settings")
        click(driver, 'input[name="lang"][value="zh"]')
        click(driver, 'input[name="units"][value="imperial"]')
        submit(driver, '[data-action="save"]')
        driver.get(stack.url + "/")
        c.expect(driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "zh-Hans", "the pages are in 中文")
        c.expect(wait_for(lambda: field(driver, "distance_m")[0].endswith(" mi"), 5, "miles")
              and "距离" in driver.page_source, "distances in miles, labels in Chinese")

        errors = web_stack.console_errors(driver)
        c.expect(not errors, f"no console errors since {errors[:3]}")
        urls += web_stack.requests_seen(driver)

        # Revoked: out at once, while its live view is open.
        device = json.loads(stack.web_cli("devices", "--json"))["devices"][0]["id"]
        stack.web_cli("revoke", device)
        c.expect(wait_for(lambda: "/pair" in driver.current_url, 10, "the pairing page"),
              "a revoked phone's live page leaves for the pairing page at once")
        driver.get(stack.url + "/sessions")
        c.expect(driver.find_elements(By.NAME, "code") and "History" not in driver.title, "and gets nothing but pairing")

        # Console and network: after the revocation only the refusals themselves (401) are logged.
        errors = [e for e in web_stack.console_errors(driver) if "401" not in e.get("message", "")]
        c.expect(not errors, f"no console errors after the revocation but its 401s {errors[:3]}")
        urls += web_stack.requests_seen(driver)
        outside = [u for u in urls if not (u.startswith(stack.url + "/") or u.startswith("data:") or u.startswith("blob:"))]
        c.expect(len(urls) > 10 and not outside, f"all {len(urls)} requests went to {stack.url} {outside[:3]}")
    except Exception as e:  # a step that could not run is a failure, named
        c.expect(False, f"the suite ran to the end ({type(e).__name__}: {e})")
    finally:
        if driver:
            driver.quit()
        stack.close()
        print(f"{len(c.failed)} failed, {time.monotonic() - started:.0f} s; work in {stack.work}" if c.failed
              else f"all passed in {time.monotonic() - started:.0f} s")
        if not args.keep and not c.failed:
            shutil.rmtree(stack.work, ignore_errors=True)
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
