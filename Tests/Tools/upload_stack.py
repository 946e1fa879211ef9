"""The servers and processes of moonrunner-upload's end-to-end test, each
started by the test and ended by it: the daemon recording the demo walk
(gpsfake), the Strava and intervals.icu stand-ins, a real WebDAV server
(PyPI's wsgidav), NetworkManager's stand-in on a private system bus, and the
upload service itself (`moonrunner-upload`, the daemon's binary by that name).
"""
import base64
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import rig
import standin_http
import system_bus
import trace_files

PYTHON = sys.executable


def call(path, line, timeout=30):
    """One request line on a MoonRunner socket (the daemon's or the upload service's): its reply, parsed."""
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(timeout)
        s.connect(path)
        f = s.makefile("rwb")
        f.readline()  # VERSION
        f.write(line.encode() + b"\n")
        f.flush()
        return json.loads(f.readline())


def export(path, session, fmt="fit", privacy=None):
    """?EXPORT's file, put back together from its EXPORT_DATA lines (None when refused)."""
    params = {"id": session, "format": fmt}
    if privacy:
        params["privacy"] = privacy
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(30)
        s.connect(path)
        f = s.makefile("rwb")
        f.readline()
        f.write(f"?EXPORT={json.dumps(params)};\n".encode())
        f.flush()
        head = json.loads(f.readline())
        if head["class"] != "EXPORT":
            return None
        data = b""
        for _ in range(head["chunks"]):
            piece = json.loads(f.readline())["data"]
            data += base64.b64decode(piece) if head["encoding"] == "base64" else piece.encode()
        return data


def http_json(url, body=None):
    req = urllib.request.Request(url, data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Content-Type": "application/json"}, method="POST" if body is not None else "GET")
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


class Stack:
    """Everything the suite runs, started in order and ended by `close` whatever happened."""

    def __init__(self, bin_dir, work, speed=20, sock=None):
        """With `sock`, the daemon of someone else's stack (web_stack's): neither started nor ended here."""
        self.bin, self.work, self.speed = bin_dir, work, speed
        self.procs, self.bus = {}, None
        self.sock = sock or os.path.join(work, "mr.sock")
        self.upload_sock = os.path.join(work, "upload", "upload.sock")
        if sock:
            return
        self.gps_port = rig.free_port()
        # The walk ten times over with its clock running on: gpsfake's own loop would start the
        # GPS clock over, and a session recorded there would start when an earlier one did,
        # which Strava's stand-in rightly calls a duplicate.
        self.procs["gpsfake"] = rig.start_gpsfake(trace_files.repeated_walk(work, 10), self.gps_port, work,
                                                  rig.demo_cycle(speed), wait=20)
        self.start_daemon()

    def log(self, name):
        return open(os.path.join(self.work, f"{name}.log"), "a")

    def start_daemon(self):
        self.procs["daemon"] = rig.start_daemon(self.bin, self.sock, os.path.join(self.work, "state"), self.gps_port,
                                                rig.demo_imu(self.speed, loop=True), log=self.log("daemon"), wait=None,
                                                config="auto_pause: {enabled: false}\n")
        rig.wait_for(lambda: os.path.exists(self.sock) and rig.status(self.bin, self.sock), 30, "moonrunnerd")

    def restart_daemon(self):
        rig.stop_daemon(self.procs.pop("daemon"))
        self.start_daemon()

    def record(self, seconds):
        """A session of `seconds` recorded seconds, stopped: its id."""
        rig.cli(self.bin, self.sock, "start", "--activity", "walk", check=True)
        rig.wait_for(lambda: (rig.status(self.bin, self.sock) or {}).get("elapsed_s", 0) >= seconds, 120,
                     f"{seconds} s recorded")
        rig.cli(self.bin, self.sock, "stop", check=True)
        return rig.status(self.bin, self.sock)["session"]

    def show(self, session):
        return json.loads(rig.cli(self.bin, self.sock, "show", str(session), "--json", check=True).stdout)

    # The peers.

    def standins(self):
        self.strava_port, self.intervals_port, self.dav_port = rig.free_port(), rig.free_port(), rig.free_port()
        here = os.path.dirname(os.path.abspath(__file__))
        # Access tokens that expire within the refresh margin: every request refreshes, and each refresh rotates.
        self.procs["strava"] = subprocess.Popen([PYTHON, os.path.join(here, "strava_standin.py"), "--port", str(self.strava_port),
                                                 "--token-life", "60", "--processing", "0.5"],
                                                stdout=subprocess.DEVNULL, stderr=self.log("strava"))
        self.procs["intervals"] = subprocess.Popen([PYTHON, os.path.join(here, "intervals_standin.py"), "--port",
                                                    str(self.intervals_port), "--athlete", "i42", "--key", "k3y"],
                                                   stdout=subprocess.DEVNULL, stderr=self.log("intervals"))
        dav_root = os.path.join(self.work, "dav")
        os.makedirs(dav_root)
        with open(os.path.join(self.work, "wsgidav.yaml"), "w") as f:
            f.write(f"host: 127.0.0.1\nport: {self.dav_port}\nprovider_mapping:\n  /dav: {dav_root}\n"
                    "simple_dc:\n  user_mapping:\n    '*':\n      runner:\n        password: s3cret\n"
                    "http_authenticator:\n  accept_basic: true\n  accept_digest: false\n  default_to_digest: false\n"
                    "verbose: 1\nlogging:\n  enable_loggers: []\n")
        self.procs["wsgidav"] = subprocess.Popen([wsgidav(), "--config", os.path.join(self.work, "wsgidav.yaml")],
                                                 stdout=self.log("wsgidav"), stderr=subprocess.STDOUT)
        for port in (self.strava_port, self.intervals_port, self.dav_port):
            rig.wait_for(lambda: rig.listening(port), 20, f"a stand-in on {port}")
        self.dav_root = dav_root

    def network_manager(self):
        self.bus, _, self.bus_env = system_bus.start(self.work)
        here = os.path.dirname(os.path.abspath(__file__))
        self.procs["nm"] = subprocess.Popen([PYTHON, os.path.join(here, "nm_standin.py")], stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, stderr=self.log("nm"), env=self.bus_env, text=True)
        assert json.loads(self.procs["nm"].stdout.readline()).get("ready")

    def network(self, command):
        nm = self.procs["nm"]
        nm.stdin.write(command + "\n")
        nm.stdin.flush()
        nm.stdout.readline()

    def upload_config(self, zones, fittrackee_url=""):
        return (f"socket: {{path: {self.sock}}}\nupload:\n  state_dir: {self.work}/upload/state\n"
                f"  admin_socket: {self.upload_sock}\n  admin_group: root\n  networks: [home]\n"
                f"  privacy_zones: {json.dumps(zones)}\n  first_retry_s: 0.3\n  longest_retry_s: 2\n"
                f"  strava:\n    url: http://127.0.0.1:{self.strava_port}\n"
                f"    authorize_url: http://127.0.0.1:{self.strava_port}/oauth/authorize\n"
                f"  intervals:\n    url: http://127.0.0.1:{self.intervals_port}\n"
                f"  webdav:\n    url: http://127.0.0.1:{self.dav_port}/dav/runs\n"
                f"  fittrackee:\n    url: \"{fittrackee_url}\"\n")

    def start_upload(self, config):
        path = os.path.join(self.work, "upload.yaml")
        with open(path, "w") as f:
            f.write(config)
        link = os.path.join(self.work, "moonrunner-upload")
        if not os.path.exists(link):
            os.symlink(os.path.abspath(os.path.join(self.bin, "moonrunnerd")), link)
        self.procs["upload"] = subprocess.Popen([link, "--config", path, "--log-level", os.environ.get("UPLOAD_LOG_LEVEL", "info")], env=self.bus_env,
                                                stdout=self.log("upload"), stderr=subprocess.STDOUT)
        rig.wait_for(lambda: os.path.exists(self.upload_sock), 20, "moonrunner-upload's socket")

    def kill_upload(self):
        p = self.procs.pop("upload")
        p.kill()
        p.wait(5)
        if os.path.exists(self.upload_sock):
            os.unlink(self.upload_sock)

    def ask(self, line):
        return call(self.upload_sock, line)

    def upload_cli(self, *args, stdin=None, sock=None):
        """`moonrunner upload ARGS` as a person types it (the real CLI): its completed process."""
        return subprocess.run([os.path.join(self.bin, "moonrunner"), "upload", *args, "--upload-socket",
                               sock or self.upload_sock], input=stdin, capture_output=True, text=True, timeout=60)

    def start_announcers(self):
        """moonrunner-announce in English and in Mandarin, each writing what it says into a folder of its own."""
        self.said_dirs = {}
        config = os.path.join(self.work, "announce.yaml")
        with open(config, "w") as f:
            # A loaded CI machine may take more than the default 5 s to reach a burst's last sentence.
            f.write("max_delay_s: 60\n")
        for language in ("en", "cmn"):
            folder = os.path.join(self.work, f"said-{language}")
            self.said_dirs[language] = folder
            self.procs[f"announce-{language}"] = subprocess.Popen(
                [os.path.join(self.bin, "moonrunner-announce"), "--config", config, "--socket", self.sock,
                 "--upload-socket", self.upload_sock, "--language", language, "--output", folder],
                stdout=self.log(f"announce-{language}"), stderr=subprocess.STDOUT)

    def said(self, language):
        """What the announcer of `language` has said, in order."""
        folder = self.said_dirs[language]
        names = sorted(n for n in os.listdir(folder) if n.endswith(".txt")) if os.path.isdir(folder) else []
        return [open(os.path.join(folder, n), encoding="utf-8").read().strip() for n in names]

    def connect_strava(self):
        self.ask('?SETUP={"target":"strava","fields":{"client_id":"12345","client_secret":"s3cret"}};')
        url = self.ask('?AUTHORIZE={"target":"strava","redirect_uri":"http://127.0.0.1:8080/uploads/callback"};')["url"]
        location = no_redirect_get(url)
        q = dict(p.split("=", 1) for p in location.split("?", 1)[1].split("&"))
        return self.ask("?GRANT=" + json.dumps({"state": q["state"], "code": q["code"],
                                                "scope": urllib.parse.unquote(q["scope"])}) + ";")

    def jobs(self):
        return {(j["target"], j["session"]): j for j in self.ask("?UPLOADS;")["jobs"]}

    def stored(self, name):
        port = {"strava": self.strava_port, "intervals": self.intervals_port}[name]
        return http_json(f"http://127.0.0.1:{port}/_stored")

    def fault(self, name, spec):
        port = {"strava": self.strava_port, "intervals": self.intervals_port}[name]
        http_json(f"http://127.0.0.1:{port}/_control", spec)

    def dav_files(self):
        folder = os.path.join(self.dav_root, "runs")
        return sorted(os.listdir(folder)) if os.path.isdir(folder) else []

    def close(self):
        for name in ("announce-en", "announce-cmn", "upload", "nm", "wsgidav", "intervals", "strava"):
            p = self.procs.pop(name, None)
            if p is not None:
                p.kill()
                p.wait(5)
        rig.stop_daemon(self.procs.pop("daemon", None))
        if "gpsfake" in self.procs:
            rig.end_gpsfake(self.procs.pop("gpsfake"))
        system_bus.end(self.bus)


def no_redirect_get(url):
    """The Location of a redirect, not followed."""
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *a, **k):
            return None
    try:
        urllib.request.build_opener(NoRedirect).open(url, timeout=10)
    except urllib.error.HTTPError as e:
        return e.headers["Location"]
    raise RuntimeError("no redirect")


def wsgidav():
    """The wsgidav command: $MOONRUNNER_UPLOAD_VENV's, the venv's (make deps), or one on PATH."""
    venv = os.path.join(os.environ.get("MOONRUNNER_UPLOAD_VENV") or
                        os.path.join(os.path.expanduser("~"), ".cache", "moonrunner-upload", "venv"), "bin", "wsgidav")
    return venv if os.path.exists(venv) else shutil.which("wsgidav") or "wsgidav"


def sha(data):
    return hashlib.sha256(data).hexdigest()
