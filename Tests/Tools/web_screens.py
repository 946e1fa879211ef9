#!/usr/bin/env python3
"""A PNG of every page of the web app, light and dark, English and Chinese, at a
phone's size (390 px wide, the whole page), for people to look at.

The real stack (web_stack.py) replays the demo walk: a phone pairs, uploads
the walk's course, follows it for a while (pause, lap), stops; then every
page is captured, and last the daemon is stopped to capture what a phone
shows when it is not running. Needs fonts-noto-cjk for the Chinese pages.

    web_screens.py --bin .build/release --out .build/web-screens

Writes OUT/NAME-LANG-THEME.png and prints the list.
"""
import argparse
import base64
import json
import os
import shutil
import sys
import time

import rig
import web_stack


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

    shutil.rmtree(args.out, ignore_errors=True)
    os.makedirs(args.out)
    stack = web_stack.Stack(args.bin, speed=args.speed, loop=True)
    driver = web_stack.browser()
    written = []

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
        stack.close()
    for p in written:
        print(p)
    shutil.rmtree(stack.work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
