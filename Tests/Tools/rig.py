"""What the tools that run the real daemon against a real gpsd share.

gpsfake always gets a private TMPDIR (its work folder): gpsfake names gpsd's
control socket `$TMPDIR/gpsfake-<pid>.sock` and takes that file's existence as
"gpsd is ready", so a stale one left by a killed gpsfake with the same pid
would let it connect before gpsd listens (see Rig.swift). It runs in its own
session with the gpsd it starts, so ending it ends the whole group.
"""
import json
import os
import signal
import socket
import subprocess
import time


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


def listening(port):
    """True once something accepts connections on the loopback port."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        return True
    except OSError:
        return False


def start_gpsfake(nmea, port, work, cycle, options=(), stdout=None, log=None):
    """gpsfake replaying `nmea` on `port`, `cycle` seconds per sentence."""
    return subprocess.Popen(["gpsfake", "-q", *options, "-P", str(port), "-c", f"{cycle:.6f}", nmea],
                            env=dict(os.environ, TMPDIR=work),
                            stdout=stdout if stdout is not None else subprocess.DEVNULL,
                            stderr=log if log is not None else subprocess.DEVNULL,
                            start_new_session=True)


def end_gpsfake(proc):
    """Ends gpsfake and the gpsd it started."""
    if proc is None or proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(5)


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


def analyze(binary, *args, timeout=600):
    """`moonrunner analyze ARGS --json`, its JSON; RuntimeError (with stderr) when it fails."""
    cmd = [binary, "analyze", *args, "--json"]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({res.returncode}): {res.stderr.strip()}")
    return json.loads(res.stdout)
