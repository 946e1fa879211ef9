"""The web app's whole stack on loopback, for the browser suite, the screenshots and the benchmark.

Real gpsd (gpsfake, with the private TMPDIR and teardown of rig.py)
replays the demo walk; moonrunnerd runs with the emulated MPU-6050 replaying
the demo IMU trace; moonrunner-web serves the pages on a free loopback port
with its own state folder and admin socket; the real CLI pairs phones and
reads what the pages should show; `pair` and `Watchers` are phones paired
and reading the live page. Every wait is bounded; one teardown ends every
process this started, by its id.

Also the Chromium (Debian's chromium + chromium-driver, Selenium offline)
the suites drive, at a phone's size, with the DevTools performance log on.
"""
import json
import os
import socket
import subprocess
import tempfile
import threading
import urllib.parse

import rig

PHONE = (390, 844)


class Stack:
    """gpsfake + moonrunnerd + moonrunner-web, started in that order."""

    def __init__(self, bin_dir, speed=20.0, work=None, web_args=(), loop=False, replay=True, daemon_config=None,
                 upload_socket=None, imu=None, daemon_args=()):
        self.bin = os.path.abspath(bin_dir)
        self.speed = speed
        self.work = work or tempfile.mkdtemp(prefix="mrweb-")
        os.makedirs(self.work, exist_ok=True)
        self.socket = os.path.join(self.work, "mr.sock")
        self.admin = os.path.join(self.work, "web-run", "admin.sock")
        self.port = rig.free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.gps = self.daemon = self.web = None
        self.logs = []
        with open(os.path.join(rig.DEMO, "walk.truth.json")) as f:
            self.duration = json.load(f)["duration_s"]
        self.gps_port = rig.free_port()
        self.imu = imu or rig.demo_imu(speed, loop)
        self.daemon_config = daemon_config
        self.upload_socket = upload_socket  # web.upload_socket, when set (moonrunner-upload's, for the uploads page)
        self.daemon_args = tuple(daemon_args)
        try:
            if replay:
                self.gps = rig.start_gpsfake(os.path.join(rig.DEMO, "walk.nmea"), self.gps_port, self.work,
                                             rig.demo_cycle(speed), options=() if loop else ("-1",),
                                             log=self._log("gpsfake"), wait=10)
            self.start_daemon()
            self.start_web(*web_args)
        except BaseException:
            self.close()
            raise

    def _log(self, name):
        f = open(os.path.join(self.work, name + ".log"), "ab")
        self.logs.append(f)
        return f

    def start_web(self, *extra):
        config = os.path.join(self.work, "web.yaml")
        with open(config, "w") as f:
            f.write(f"web:\n  listen: 127.0.0.1:{self.port}\n  state_dir: {self.work}/web-state\n"
                    f"  admin_socket: {self.admin}\n")
            if self.upload_socket:
                f.write(f"  upload_socket: {self.upload_socket}\n")
        self.web = subprocess.Popen([os.path.join(self.bin, "moonrunner-web"), "--config", config, "--socket", self.socket,
                                     "--log-level", "info", *extra],
                                    stdout=subprocess.DEVNULL, stderr=self._log("moonrunner-web"))
        rig.wait_for(lambda: rig.listening(self.port), 15, "moonrunner-web")

    def stop_web(self):
        rig.stop_daemon(self.web)
        self.web = None

    def start_daemon(self):
        self.daemon = rig.start_daemon(self.bin, self.socket, os.path.join(self.work, "state"), self.gps_port, self.imu,
                                       "--log-level", "notice", *self.daemon_args, config=self.daemon_config,
                                       log=self._log("moonrunnerd"))

    def stop_daemon(self):
        """SIGTERM, as systemd stops it."""
        rig.stop_daemon(self.daemon)
        self.daemon = None
        rig.wait_for(lambda: not os.path.exists(self.socket), 10, "the daemon's socket to go")

    def cli(self, *args, check=True):
        """The real CLI against this daemon; its standard output (bytes)."""
        return rig.cli(self.bin, self.socket, *args, check=check, text=False).stdout

    def web_cli(self, *args, check=True):
        r = subprocess.run([os.path.join(self.bin, "moonrunner"), "web", *args, "--admin-socket", self.admin],
                           capture_output=True, timeout=30)
        if check and r.returncode != 0:
            raise RuntimeError(f"moonrunner web {' '.join(args)}: {r.returncode} {r.stderr.decode()}")
        return r.stdout.decode()

    def pairing(self):
        """A fresh pairing code and link, as `moonrunner web pair --json` prints them."""
        return json.loads(self.web_cli("pair", "--json"))

    def status(self):
        return rig.status(self.bin, self.socket)

    def close(self):
        """Ends what this started, newest first, by process id."""
        for p in (self.web, self.daemon):
            rig.stop_daemon(p)
        rig.end_gpsfake(self.gps)
        for f in self.logs:
            f.close()


def pair(stack):
    """A device cookie, traded for a fresh code as a phone's form does."""
    code = stack.pairing()["code"]
    s = socket.create_connection(("127.0.0.1", stack.port))
    body = urllib.parse.urlencode({"code": code, "name": "bench"}).encode()
    s.sendall(f"POST /pair HTTP/1.1\r\nHost: 127.0.0.1:{stack.port}\r\nOrigin: {stack.url}\r\n"
              f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {len(body)}\r\n"
              f"Connection: close\r\n\r\n".encode() + body)
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(4096)
    s.close()
    for line in head.decode(errors="replace").split("\r\n"):
        if line.lower().startswith("set-cookie: mr_device="):
            return line.split(": ", 1)[1].split(";")[0]
    raise RuntimeError("pairing failed: " + head.decode(errors="replace")[:200])


class Watchers:
    """`count` phones' live streams, each read to the end on its own thread."""

    def __init__(self, stack, cookie, count):
        self.sockets = []
        self.received = [0] * count
        for k in range(count):
            s = socket.create_connection(("127.0.0.1", stack.port))
            s.sendall(f"GET /live HTTP/1.1\r\nHost: 127.0.0.1:{stack.port}\r\nCookie: {cookie}\r\n"
                      f"Accept: text/event-stream\r\n\r\n".encode())
            self.sockets.append(s)
            threading.Thread(target=self._read, args=(k, s), daemon=True).start()

    def _read(self, k, s):
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    return
                self.received[k] += len(chunk)
        except OSError:
            return

    def close(self):
        for s in self.sockets:
            try:
                s.close()
            except OSError:
                pass


def browser(download_dir=None, lang="en-GB"):
    """Headless Chromium at a phone's size (390×844, touch, device pixels 1:1), the
    DevTools performance and console logs on, downloads into `download_dir`."""
    os.environ["SE_OFFLINE"] = "true"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run",
              "--disable-extensions", "--disable-background-networking", "--disable-component-update",
              "--disable-sync", "--disable-default-apps", "--metrics-recording-only", "--no-default-browser-check",
              "--disable-features=Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider",
              f"--window-size={PHONE[0]},{PHONE[1]}", f"--lang={lang}"):
        options.add_argument(a)
    prefs = {"intl.accept_languages": lang}
    if download_dir:
        prefs.update({"download.default_directory": download_dir, "download.prompt_for_download": False})
    options.add_experimental_option("prefs", prefs)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": PHONE[0], "height": PHONE[1], "deviceScaleFactor": 1, "mobile": True})
    driver.execute_cdp_cmd("Network.enable", {})
    if download_dir:
        driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": download_dir})
    driver.set_page_load_timeout(30)
    return driver


def requests_seen(driver):
    """Every URL the page asked for since the last call (DevTools performance log)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def console_errors(driver):
    """Console messages of level SEVERE since the last call."""
    return [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
