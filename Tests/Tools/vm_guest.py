"""A booted Debian guest under qemu-system, as vm_check.py drives it.

The guest is the image of cross/vm_image.py, booted with Debian's kernel and
initrd under software emulation (TCG), 2 CPUs and 512 MB as a Pi Zero 2 W
has. Its disk is a copy of the image kept across boots of one check run (a
power cut and the boot after it see the same disk). What crosses between
host and guest:

* ssh on a 127.0.0.1 port forward (qemu's user network with restrict=on: the
  guest reaches nothing outside, the forward is the only way in);
* the web app's port, forwarded the same way;
* the GPS: NMEA written into a qemu virtconsole (/dev/hvc0 in the guest, read
  by gpsd as a Pi's UART GPS HAT is) by `NMEAFeed`, which keeps what it sent;
* QMP, to read the virtual disk's write counters (a power cut inside a commit).

A power cut is SIGKILL of qemu: the guest's page cache and everything in its
memory is lost; what it had written to the virtual disk stays.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time

import rig

QEMU = {
    "arm64": ["qemu-system-aarch64", "-M", "virt", "-cpu", "cortex-a72"],
    "amd64": ["qemu-system-x86_64", "-M", "q35", "-cpu", "max", "-vga", "none"],
}
# A Pi Zero 2 W: four cores, of which the checks give the guest two, and 512 MB.
SMP, MEMORY_MB = 2, 512


class Guest:
    def __init__(self, image_dir, arch, work):
        self.image = json.load(open(os.path.join(image_dir, "image.json")))
        self.image_dir, self.arch, self.work = image_dir, arch, work
        self.key = os.path.join(work, "id_ed25519")
        self.disk = os.path.join(work, "disk.raw")
        self.ssh_port, self.web_port = rig.free_port(), rig.free_port()
        self.proc = None
        self.boots = 0
        os.makedirs(work, exist_ok=True)
        shutil.copy(os.path.join(image_dir, "id_ed25519"), self.key)
        os.chmod(self.key, 0o600)
        # A sparse copy: the image's 3 GB are mostly holes.
        subprocess.run(["cp", "--sparse=always", os.path.join(image_dir, "disk.raw"), self.disk], check=True)

    # --- life cycle -----------------------------------------------------------------------

    def boot(self, timeout=600):
        """Starts qemu and waits until ssh answers; returns the seconds it took."""
        self.boots += 1
        for name in ("gps.sock", "qmp.sock"):
            if os.path.exists(os.path.join(self.work, name)):
                os.remove(os.path.join(self.work, name))
        console = os.path.join(self.work, f"console-{self.boots}.log")
        forwards = f"hostfwd=tcp:127.0.0.1:{self.ssh_port}-:22,hostfwd=tcp:127.0.0.1:{self.web_port}-:8080"
        cmd = QEMU[self.arch] + [
            "-accel", "tcg,thread=multi", "-smp", str(SMP), "-m", str(MEMORY_MB),
            "-kernel", os.path.join(self.image_dir, "vmlinuz"), "-initrd", os.path.join(self.image_dir, "initrd.img"),
            "-append", f"root=/dev/vda rw console={self.image['console']} panic=5",
            "-drive", f"file={self.disk},format=raw,if=none,id=disk,cache=writeback",
            "-device", "virtio-blk-pci,drive=disk",
            "-netdev", f"user,id=net,restrict=on,{forwards}", "-device", "virtio-net-pci,netdev=net,romfile=",
            "-device", "virtio-rng-pci",
            "-device", "virtio-serial-pci",
            "-chardev", f"socket,id=gps,path={self.work}/gps.sock,server=on,wait=off",
            "-device", "virtconsole,chardev=gps",
            "-qmp", f"unix:{self.work}/qmp.sock,server=on,wait=off",
            "-display", "none", "-monitor", "none", "-serial", f"file:{console}", "-no-reboot",
        ]
        t0 = time.monotonic()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=open(console + ".qemu", "w"),
                                     stderr=subprocess.STDOUT, start_new_session=True)
        end = t0 + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"qemu ended during boot (exit {self.proc.returncode}); see {console}")
            if self.ssh("true", check=False, timeout=20, quiet=True).returncode == 0:
                return time.monotonic() - t0
            time.sleep(2)
        raise RuntimeError(f"the guest did not answer ssh within {timeout} s; see {console}")

    def power_cut(self):
        """SIGKILL of qemu: the battery dies."""
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(30)
        self.proc = None

    def poweroff(self, timeout=300):
        """`systemctl poweroff` in the guest; returns the seconds until qemu ended."""
        t0 = time.monotonic()
        self.ssh("systemctl poweroff", check=False, timeout=30)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.power_cut()
            raise RuntimeError(f"the guest did not power off within {timeout} s")
        self.proc = None
        return time.monotonic() - t0

    def close(self):
        self.power_cut()

    # --- talking to it ----------------------------------------------------------------------

    def _ssh_base(self):
        return ["ssh", "-i", self.key, "-p", str(self.ssh_port), "-o", "BatchMode=yes", "-o", "ConnectTimeout=10",
                "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
                "root@127.0.0.1"]

    def ssh(self, command, check=True, timeout=300, quiet=False, input=None):
        """Runs a shell command in the guest as root; stdout and stderr as text."""
        try:
            r = subprocess.run(self._ssh_base() + [command], capture_output=True, text=True, timeout=timeout,
                               input=input)
        except subprocess.TimeoutExpired as e:
            r = subprocess.CompletedProcess(e.cmd, 124, e.stdout or "", f"timed out after {timeout} s")
        if check and r.returncode != 0:
            raise RuntimeError(f"in the guest: {command}\nexit {r.returncode}\n{r.stdout}{r.stderr}")
        return r

    def put(self, local, remote):
        """Copies a host file into the guest."""
        with open(local, "rb") as f:
            data = f.read()
        r = subprocess.run(self._ssh_base() + [f"cat > {remote}"], input=data, capture_output=True, timeout=300)
        if r.returncode != 0:
            raise RuntimeError(f"copying {local} to the guest's {remote}: {r.stderr.decode()}")

    def get(self, remote, local):
        """Copies a guest file to the host."""
        r = subprocess.run(self._ssh_base() + [f"cat {remote}"], capture_output=True, timeout=300)
        if r.returncode != 0:
            raise RuntimeError(f"copying the guest's {remote}: {r.stderr.decode()}")
        with open(local, "wb") as f:
            f.write(r.stdout)

    def journal(self, unit, lines=40, boot=None):
        b = f" -b {boot}" if boot is not None else ""
        return self.ssh(f"journalctl --no-pager -o short-monotonic{b} -u {unit} -n {lines}", check=False).stdout

    def disk_writes(self):
        """The virtual disk's (write operations, flush operations) so far, through QMP."""
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(5)
            s.connect(os.path.join(self.work, "qmp.sock"))
            f = s.makefile("rw")
            f.readline()
            for command in ("qmp_capabilities", "query-blockstats"):
                f.write(json.dumps({"execute": command}) + "\n")
                f.flush()
                while True:
                    reply = json.loads(f.readline())
                    if "return" in reply or "error" in reply:
                        break
            stats = reply["return"][0]["stats"]
            return stats["wr_operations"], stats["flush_operations"]

    def cut_inside_a_write(self, limit):
        """Polls the disk's write counter (QMP, one connection) and cuts the power the moment it moves:
        the cut lands inside the burst of writes a commit makes. Returns the counters at the cut."""
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(os.path.join(self.work, "qmp.sock"))
            f = s.makefile("rw")
            f.readline()

            def ask(command):
                f.write(json.dumps({"execute": command}) + "\n")
                f.flush()
                while True:
                    reply = json.loads(f.readline())
                    if "return" in reply or "error" in reply:
                        return reply

            ask("qmp_capabilities")
            first = ask("query-blockstats")["return"][0]["stats"]["wr_operations"]
            end = time.monotonic() + limit
            while time.monotonic() < end:
                stats = ask("query-blockstats")["return"][0]["stats"]
                if stats["wr_operations"] != first:
                    self.power_cut()
                    return stats["wr_operations"], stats["flush_operations"]
                time.sleep(0.002)
        self.power_cut()
        return None


class NMEAFeed(threading.Thread):
    """Writes a NMEA log into the guest's GPS serial line, an epoch every `period` seconds.

    `clock`: None keeps the log's own times (once through); "now" stamps each
    epoch with the host's UTC time as a live receiver would, looping the log;
    a number stamps epoch k with that UNIX time + k seconds (a replay faster
    than real time), looping too. `sent` keeps (fix time, host time) of every
    epoch written: the loss after a power cut is measured against it.
    Reconnects to the serial line after each boot (qemu makes it anew).
    """

    def __init__(self, nmea, sock_path, period=1.0, clock=None):
        super().__init__(daemon=True)
        self.epochs = self._epochs(nmea)
        self.sock_path, self.period, self.clock = sock_path, period, clock
        self.sent = []
        self.stopped = threading.Event()
        self.done = threading.Event()
        self.lock = threading.Lock()

    def stamp(self, k):
        """The fix time of the k-th epoch written, or None to keep the log's."""
        if self.clock is None:
            return None
        return time.time() if self.clock == "now" else self.clock + k

    @staticmethod
    def _epochs(path):
        """The log's sentences grouped by epoch (a GGA starts one)."""
        epochs, current = [], []
        for line in open(path):
            line = line.strip()
            if not line.startswith("$"):
                continue
            if line[3:6] == "GGA" and current:
                epochs.append(current)
                current = []
            current.append(line)
        if current:
            epochs.append(current)
        return epochs

    @staticmethod
    def _checksum(body):
        c = 0
        for ch in body:
            c ^= ord(ch)
        return f"{c:02X}"

    @classmethod
    def restamp(cls, sentence, when):
        """The sentence with its time (and RMC's/ZDA's date) set to UNIX time `when`."""
        body = sentence[1:].split("*", 1)[0]
        fields = body.split(",")
        tm = time.gmtime(when)
        hhmmss = time.strftime("%H%M%S", tm) + f".{int(round((when % 1) * 100)) % 100:02d}"
        kind = fields[0][2:]
        if kind in ("GGA", "GST", "GLL", "ZDA", "RMC", "GNS") and len(fields) > 1:
            index = 5 if kind == "GLL" else 1
            fields[index] = hhmmss
        if kind == "RMC" and len(fields) > 9:
            fields[9] = time.strftime("%d%m%y", tm)
        if kind == "ZDA" and len(fields) > 4:
            fields[2], fields[3], fields[4] = time.strftime("%d", tm), time.strftime("%m", tm), time.strftime("%Y", tm)
        body = ",".join(fields)
        return f"${body}*{cls._checksum(body)}"

    def _connect(self):
        while not self.stopped.is_set():
            try:
                s = socket.socket(socket.AF_UNIX)
                s.connect(self.sock_path)
                return s
            except OSError:
                time.sleep(0.2)
        return None

    def run(self):
        conn, k = None, 0
        next_at = time.monotonic()
        while not self.stopped.is_set() and (self.clock is not None or k < len(self.epochs)):
            if conn is None:
                conn = self._connect()
                if conn is None:
                    break
                next_at = time.monotonic()
            when = self.stamp(k)
            epoch = self.epochs[k % len(self.epochs)]
            lines = [self.restamp(s, when) for s in epoch] if when is not None else epoch
            try:
                conn.sendall(("\r\n".join(lines) + "\r\n").encode())
            except OSError:
                conn.close()
                conn = None
                time.sleep(0.2)
                continue
            with self.lock:
                self.sent.append((when if when is not None else k, time.time()))
            k += 1
            next_at += self.period
            time.sleep(max(0.0, next_at - time.monotonic()))
        self.done.set()
        if conn:
            conn.close()

    def last_sent_before(self, utc):
        """The newest epoch written before host time `utc` (its fix time in live mode)."""
        with self.lock:
            before = [fix for fix, at in self.sent if at <= utc]
        return before[-1] if before else None

    def count_sent_after(self, fix_time, utc):
        """How many epochs after the one of `fix_time` were written before host time `utc`. The store
        keeps a fix's time as NMEA carries it (to 0.01 s), so the epoch itself is told by half a period."""
        with self.lock:
            return sum(1 for fix, at in self.sent if fix > fix_time + self.period / 2 and at <= utc)

    def stop(self):
        self.stopped.set()
        self.join(10)

