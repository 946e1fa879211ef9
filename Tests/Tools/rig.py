"""What the tools in Tests/Tools share, so that none of them keeps a copy.

`python3 Tests/Tools/x.py` puts this folder on the path, so a tool says
`import rig` and nothing more. A function moves here the first time a second
tool needs it.

Command line. `common_args` gives every tool the same four options: `--bin`
is always the build folder (`.build/release`), never an executable in it, so
one Makefile variable serves every tool; `--data` defaults to the shared
data beside the repository; `--check` makes a missed target exit 1; `--jobs`
is how many runs go at once.

Processes. gpsfake always gets a private TMPDIR (its work folder): gpsfake
names gpsd's control socket `$TMPDIR/gpsfake-<pid>.sock` and takes that
file's existence as "gpsd is ready", so a stale one left by a killed gpsfake
with the same pid would let it connect before gpsd listens (see Rig.swift).
It runs in its own session with the gpsd it starts, so ending it ends the
whole group. Every wait is bounded (`wait_for(cond, timeout, what)`) and
names what it waited for; each tool has one teardown that ends what it
started, by process id.

Figures. `Targets` records each figure against its target and prints the
misses in one wording for every tool; `percentile_linear` is the one
percentile (interpolated between the two nearest ranks, as numpy's default).
Only the standard library is imported here. A private system bus is
system_bus.py's, the heart-rate strap's stand-in strap.py's.
"""
import csv
import datetime
import gzip
import glob
import json
import math
import os
import signal
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEMO = os.path.join(ROOT, "Tests", "Fixtures", "demo")
# The labelled recordings live beside the repository, not in it.
DATA = os.path.normpath(os.path.join(ROOT, "..", "shared", "data"))
CORES = os.cpu_count() or 2


# Command line.

def common_args(parser, *, data=True, check=True, jobs=None, build="release"):
    """--bin (the build folder), and as asked --data, --check and --jobs (`jobs` is its default)."""
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", build),
                        help=f"the build folder (default .build/{build})")
    if data:
        parser.add_argument("--data", default=DATA, help="the shared data folder (default ../shared/data)")
    if check:
        parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    if jobs is not None:
        parser.add_argument("--jobs", type=int, default=jobs, help=f"runs at once (default {jobs})")


def program(bin_dir, name):
    """The path of `name` in the build folder; exits 2 saying so when it is not there."""
    path = os.path.join(bin_dir, name)
    if not os.access(path, os.X_OK):
        tool = os.path.splitext(os.path.basename(sys.argv[0]))[0]
        sys.exit(f"{tool}: {path} is not an executable (--bin is the build folder, e.g. .build/release)")
    return path


def run_checked(cmd, timeout=None):
    """Runs `cmd` (for at most `timeout` seconds); its standard output, or RuntimeError
    naming the command with its standard error."""
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({res.returncode}): {res.stderr.strip()}")
    return res.stdout


def analyze(bin_dir, *args, timeout=600):
    """`moonrunner analyze ARGS --json`, its JSON; RuntimeError (with stderr) when it fails."""
    return json.loads(run_checked([os.path.join(bin_dir, "moonrunner"), "analyze", *args, "--json"], timeout))


def analyze_cases(data):
    """(name, argv) of `analyze` in every mode on every shared trace, named by the data's own paths:
    each IMU trace alone, each GPS trace with its written track, each simulated run with its barometer
    trace, each real run with its heart-rate trace, each course in each format over its run."""
    cases = []
    rel = lambda p: os.path.relpath(p, data)
    for imu in sorted(glob.glob(os.path.join(data, "steps/*/*.csv.gz"))):
        cases.append((f"imu/{rel(imu)}", ["--imu", imu]))
    for gps in sorted(glob.glob(os.path.join(data, "**/*.gpsd.json"), recursive=True)):
        cases.append((f"gps/{rel(gps)}", ["--gps", gps, "--track"]))
    for baro in sorted(glob.glob(os.path.join(data, "baro/*.baro.csv.gz"))):
        scenario = os.path.basename(baro).split(".")[0]
        gps = os.path.join(data, "gps/sim", scenario + ".gpsd.json")
        cases.append((f"baro/{scenario}", ["--gps", gps, "--baro", baro, "--track"]))
    for hr in sorted(glob.glob(os.path.join(data, "hr/*.hr.csv"))):
        run = os.path.basename(hr).split(".")[0]
        gps = os.path.join(data, "hr", run + ".gpsd.json")
        cases.append((f"hr/{run}", ["--gps", gps, "--hr", hr, "--track"]))
    for course in sorted(glob.glob(os.path.join(data, "courses/*.course.*"))):
        if course.endswith(".truth.json"):
            continue
        scenario = os.path.basename(course).split(".")[0].removesuffix("_detour")
        gps = os.path.join(data, "gps/sim", scenario + ".gpsd.json")
        cases.append((f"course/{os.path.basename(course)}", ["--gps", gps, "--course", course]))
    return cases


def analyze_output(binary, argv):
    """`BINARY analyze ARGV --json` as a script sees it: its output, then its exit status."""
    res = subprocess.run([binary, "analyze", *argv, "--json"], capture_output=True, timeout=900)
    # The exit status is part of what a script sees.
    return res.stdout + f"\n[exit {res.returncode}]\n".encode()


def cli(bin_dir, sock, *args, check=False, timeout=60, text=True):
    """The real CLI against the daemon on `sock`: its completed process; RuntimeError with `check` when it fails."""
    res = subprocess.run([os.path.join(bin_dir, "moonrunner"), "--socket", sock, *args], capture_output=True,
                         text=text, timeout=timeout)
    if check and res.returncode != 0:
        err = res.stderr if text else res.stderr.decode(errors="replace")
        raise RuntimeError(f"moonrunner {' '.join(args)}: {res.returncode} {err.strip()}")
    return res


def status(bin_dir, sock):
    """`moonrunner status --json`, or None while the daemon does not answer."""
    res = cli(bin_dir, sock, "status", "--json")
    return json.loads(res.stdout) if res.returncode == 0 else None


# Processes.

def read_to_end(conn):
    """Everything a connected socket receives until the peer closes; then closes it."""
    data = b""
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
    conn.close()
    return data


def free_port():
    """A loopback TCP port nobody listens on now."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_for(cond, timeout, what):
    """Waits until cond() is true; RuntimeError naming `what` after `timeout` seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return
        time.sleep(0.05)
    raise RuntimeError(f"timed out waiting for {what}")


def ready(proc, cond, timeout, what, end):
    """`proc` once cond() is true (at once without a `timeout`); a process that never gets
    there is ended by `end(proc)` before the RuntimeError, so that no caller has to."""
    if timeout:
        try:
            wait_for(cond, timeout, what)
        except BaseException:
            end(proc)
            raise
    return proc


def listening(port):
    """True once something accepts connections on the loopback port."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        return True
    except OSError:
        return False


def start_gpsfake(nmea, port, work, cycle, options=(), stdout=None, log=None, wait=None):
    """gpsfake replaying `nmea` on `port`, `cycle` seconds per sentence; with `wait`, up to
    that many seconds until gpsd listens (a probe connection starts the feed)."""
    proc = subprocess.Popen(["gpsfake", "-q", *options, "-P", str(port), "-c", f"{cycle:.6f}", nmea],
                            env=dict(os.environ, TMPDIR=work),
                            stdout=stdout if stdout is not None else subprocess.DEVNULL,
                            stderr=log if log is not None else subprocess.DEVNULL,
                            start_new_session=True)
    return ready(proc, lambda: listening(port), wait, "gpsd", end_gpsfake)


def end_gpsfake(proc):
    """Ends gpsfake and the gpsd it started."""
    if proc is None or proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(5)


def demo_cycle(speed):
    """gpsfake's seconds per sentence for the demo walk at `speed` x (its epochs are 1 s apart)."""
    with open(os.path.join(DEMO, "walk.truth.json")) as f:
        return 1.0 / (speed * json.load(f)["nmea_sentences_per_epoch"])


def demo_imu(speed=1, loop=False):
    """The --imu value that replays the demo walk's IMU trace at `speed` x."""
    return f"replay:{os.path.join(DEMO, 'walk-imu.csv.gz')},speed={speed:g}" + (",loop" if loop else "")


def start_daemon(bin_dir, sock, state, gps_port, imu, *extra, config=None, log=None, env=None, wait=15):
    """moonrunnerd on `sock` with its state in `state`, gpsd on the loopback `gps_port`,
    `imu` as its --imu and `extra` arguments. `config` is YAML text, written beside
    the state folder; its output goes to `log` (a file) or nowhere. With `wait`,
    up to that many seconds until its socket is there."""
    args = []
    if config is not None:
        path = state.rstrip("/") + ".yaml"
        with open(path, "w") as f:
            f.write(config)
        args = ["--config", path]
    out = log if log is not None else subprocess.DEVNULL
    proc = subprocess.Popen([os.path.join(bin_dir, "moonrunnerd"), *args, "--state-dir", state, "--socket", sock,
                             "--gpsd", f"127.0.0.1:{gps_port}", "--imu", imu, *extra],
                            stdout=out, stderr=out, env=env)
    return ready(proc, lambda: os.path.exists(sock), wait, "moonrunnerd's socket", stop_daemon)


def stop_daemon(proc):
    """SIGTERM, as systemd stops it; SIGKILL if it has not ended after 10 s."""
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


class Recording:
    """gpsfake replaying `nmea` (the demo walk, or copies of it) and the daemon recording a
    session at `speed` x, with `watchers` watchers attached (footprint.py, text_order.py)."""

    def __init__(self, bin_dir, work, nmea, speed, watchers, config=""):
        self.bin, self.sock, self.state = bin_dir, os.path.join(work, "mr.sock"), os.path.join(work, "state")
        port = free_port()
        self.gpsfake = start_gpsfake(nmea, port, work, demo_cycle(speed), wait=20)
        self.daemon, self.watchers = None, []
        try:
            # The store's intervals are wall-clock seconds: divided by the speed, it commits and
            # takes the journal into the database per recorded hour as often as at 1x (what it
            # holds in memory until then is what is being measured).
            self.daemon = start_daemon(bin_dir, self.sock, self.state, port, demo_imu(speed, loop=True),
                                       config=f"imu:\n  rate_hz: 100\nsocket:\n  max_clients: {watchers + 16}\n"
                                              f"store:\n  commit_interval_s: {max(0.1, 2 / speed):g}\n"
                                              f"  consolidate_interval_s: {max(10, 1800 / speed):g}\n" + config)
            self.cli("start", "--activity", "walk")
            for _ in range(watchers):
                # A real client that reads every STATUS (`moonrunner watch`, piped: one line per update).
                self.watchers.append(subprocess.Popen([os.path.join(bin_dir, "moonrunner"), "--socket", self.sock,
                                                       "watch"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        except BaseException:
            self.close()
            raise

    def cli(self, *args):
        return cli(self.bin, self.sock, *args, check=True).stdout

    def recorded_s(self):
        """The session's elapsed seconds; the CLI's own error (and the daemon's exit, if it died) when it fails."""
        if self.daemon.poll() is not None:
            raise RuntimeError(f"moonrunnerd exited with {self.daemon.returncode} while recording")
        return json.loads(self.cli("status", "--json"))["elapsed_s"]

    def wait_recorded(self, seconds, wall_limit):
        """Asks twice a second (a client of its own would be part of what is measured if it asked more)."""
        end = time.monotonic() + wall_limit
        while self.recorded_s() < seconds:
            if time.monotonic() > end:
                raise RuntimeError(f"timed out waiting for {seconds / 60:.0f} recorded minutes")
            time.sleep(0.5)

    def close(self):
        for w in self.watchers:
            w.terminate()
        for w in self.watchers:
            w.wait(5)
        stop_daemon(self.daemon)
        end_gpsfake(self.gpsfake)


def cpu_seconds(pid):
    """utime + stime of a process (/proc/PID/stat fields 14 and 15), seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_kb(pid, name="status"):
    """The numeric fields of /proc/PID/NAME (`status`, `smaps_rollup`): {key: its number} (kB for sizes)."""
    out = {}
    with open(f"/proc/{pid}/{name}") as f:
        for line in f:
            key, colon, value = line.partition(":")
            first = value.split()[:1]
            if colon and first and first[0].isdigit() and " " not in key:
                out[key] = int(first[0])
    return out


# Data that is not there.

def skip(what):
    """Says loudly that figures were not measured because data is absent; the exit status 0.
    Under `make test` ($MOONRUNNER_SKIP_LOG) the skip is also noted for its summary
    (`skips.py`), which fails a CI run that skipped anything."""
    tool = os.path.splitext(os.path.basename(sys.argv[0]))[0]
    print("#" * 72)
    print(f"# SKIP {tool}: {what}")
    print("#      (the recordings are not in the repository); figures NOT measured")
    print("#" * 72)
    if os.environ.get("MOONRUNNER_SKIP_LOG"):
        with open(os.environ["MOONRUNNER_SKIP_LOG"], "a", encoding="utf-8") as log:
            log.write(f"{tool}: {what}\n")
    return 0


# Figures.

def mean(xs):
    """The arithmetic mean; NaN for none (a figure over no traces is no figure)."""
    xs = list(xs)
    return sum(xs) / len(xs) if xs else float("nan")


def percentile_linear(values, q):
    """The q-quantile (0 <= q <= 1) interpolated linearly between the two nearest
    ranks (numpy's default, Hyndman and Fan's type 7); NaN for no values."""
    if not values:
        return float("nan")
    v = sorted(values)
    k = (len(v) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


class Targets:
    """Each figure against its target, and the misses in one wording for every tool.

    `expect` records a verdict and gives the word the tool's table prints
    beside the figure; `report` prints the misses and returns the exit
    status: 1 when a target was missed and --check was given. A target the
    issue still has open is printed as missed on every run, so that it is
    never forgotten, but does not fail --check.
    """

    def __init__(self, check, stream=None):
        self.check = check
        self.stream = stream
        self.missed, self.open = [], []

    @staticmethod
    def word(ok, left_open=False):
        return "ok" if ok else "MISSED (open)" if left_open else "MISSED"

    def expect(self, label, ok, left_open=False):
        """Records whether the figure named `label` met its target; the verdict's word."""
        if not ok:
            (self.open if left_open else self.missed).append(label)
        return self.word(ok, left_open)

    def report(self):
        """Prints the misses; the tool's exit status."""
        out = self.stream or sys.stdout
        print(file=out)
        for count, what, labels in ((len(self.open), "open target(s) still missed, not failing --check", self.open),
                                    (len(self.missed), "target(s) missed", self.missed)):
            if labels:
                print(f"{count} {what}:", file=out)
                for label in labels:
                    print(f"  {label}", file=out)
        if not self.missed:
            print("all targets met" + (" but the open ones" if self.open else ""), file=out)
        return 1 if self.check and self.missed else 0


class Checks:
    """The rules of an end-to-end suite, each printed with its verdict as it is decided;
    any that fails fails the suite."""

    def __init__(self, stream=None):
        self.stream = stream
        self.passed, self.failed = 0, []

    def expect(self, ok, rule, detail=""):
        """Records and prints one rule's verdict (with `detail` when it fails); whether it held."""
        out = self.stream or sys.stdout
        if ok:
            self.passed += 1
            print(f"  ok    {rule}", file=out, flush=True)
        else:
            self.failed.append(rule)
            print(f"  FAIL  {rule}" + (f" {detail}" if detail != "" else ""), file=out, flush=True)
        return bool(ok)

    def summary(self, took=""):
        """Prints the count and each failed rule again; the suite's exit status."""
        out = self.stream or sys.stdout
        print(f"{self.passed} passed, {len(self.failed)} failed{took}", file=out, flush=True)
        for rule in self.failed:
            print(f"FAILED: {rule}", file=out, flush=True)
        return 1 if self.failed else 0


DEMO_TILES = ("N39W121", "N39W120", "N38W121", "N40W121")


def demo_tiles(folder):
    """Four 1" .hgt tiles around the demo walk (N39W121 and the tiles a runner of its region would have): gentle hills at the walk's height (1800-1900 m).
    Each row is one pattern shifted, so 52 MB of postings are written in a few seconds."""
    os.makedirs(folder, exist_ok=True)
    side = 3601
    pattern = bytearray()
    for c in range(2 * side):
        pattern += (1850 + int(40 * math.sin(c / 300))).to_bytes(2, "big", signed=True)
    for name in DEMO_TILES:
        with open(os.path.join(folder, name + ".hgt"), "wb") as f:
            for r in range(side):
                start = (r * 7) % side
                f.write(pattern[2 * start:2 * (start + side)])
    return folder


def demo_geotiffs(folder):
    """The same four tiles as Copernicus GLO-30 GeoTIFFs (3600 x 3600 float32, DEFLATE, blocks of
    1024 x 1024, as served): the daemon decodes the blocks the walk comes near into its cache.
    Each posting's lowest mantissa byte is random (up to 3 cm at 1850 m), so that a block
    compresses about as badly as real terrain does (a block of the plain pattern would be 0.2 MB)."""
    import array
    import zlib
    import dem_tiles
    os.makedirs(folder, exist_ok=True)
    side, block = 3600, 1024
    pattern = array.array("f", [1850 + 40 * math.sin(c / 300) for c in range(2 * side)])
    if sys.byteorder != "little":
        pattern.byteswap()
    raw = pattern.tobytes()
    mask = int.from_bytes(b"\xff\0\0\0" * block * block, "little")
    for name in DEMO_TILES:
        south = int(name[1:3]) * (1 if name[0] == "N" else -1)
        west = int(name[4:7]) * (1 if name[3] == "E" else -1)
        blocks = []
        for by in range(0, side, block):
            for bx in range(0, side, block):
                rows = bytearray(4 * block * block)
                for i in range(min(block, side - by)):
                    start = ((by + i) * 7 + bx) % side
                    width = min(block, side - bx)
                    rows[4 * i * block:4 * (i * block + width)] = raw[4 * start:4 * (start + width)]
                noise = int.from_bytes(os.urandom(len(rows)), "little") & mask
                blocks.append(zlib.compress((int.from_bytes(rows, "little") ^ noise).to_bytes(len(rows), "little"), 6))
        tags = {
            256: (3, [side]), 257: (3, [side]), 258: (3, [32]), 259: (3, [8]), 262: (3, [1]),
            277: (3, [1]), 284: (3, [1]), 339: (3, [3]), 322: (3, [block]), 323: (3, [block]),
            33550: (12, [1 / side, 1 / side, 0.0]),
            33922: (12, [0.0, 0.0, 0.0, float(west), float(south + 1), 0.0]),
            34735: (3, [1, 1, 0, 3, 1024, 0, 1, 2, 1025, 0, 1, 2, 2048, 0, 1, 4326]),
        }
        dem_tiles.write_tiff(os.path.join(folder, dem_tiles.copernicus_name(south, west, 1)), tags, blocks)
    return folder
