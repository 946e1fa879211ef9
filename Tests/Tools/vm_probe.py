#!/usr/bin/python3
"""What moonrunnerd's sandbox allows and forbids, tried from inside it (vm_check.py, check 3).

vm_check.py runs this in the booted guest as an `ExecStartPre=` of the
installed moonrunnerd.service (a drop-in adds that one line and nothing
else): systemd starts it in the unit's own execution environment, as the
daemon's user, with every sandbox line of the packaged unit applied by the
same systemd and kernel (mount namespace, ProtectSystem/ProtectHome, the
device cgroup, the IP firewall of the unit's cgroup, the seccomp filter,
RestrictAddressFamilies). It prints one JSON object per attempt to
/run/moonrunner/sandbox-probe.json: what was tried, whether it succeeded and
the errno when not. Things the daemon needs are tried too, so that a probe
that can do nothing at all is not mistaken for a sandbox that works.

vm_check.py runs it a second time outside the sandbox, as the same user, so
that each refusal can be told apart from what the user's own rights refuse.

    vm_probe.py [--i2c /dev/i2c-N] [--gpsd 127.0.0.1:2947] [--address A] [--out FILE]
"""
import argparse
import ctypes
import errno
import json
import os
import socket

# Writable by anyone but for the sandbox: /srv/open (mode 1777) and /home/alice/open (0777) are made
# so by the image; the others are root's, so that their errno (EROFS, not EACCES) is the proof.
OUTSIDE = ["/srv/open/probe", "/home/alice/open/probe", "/etc/moonrunner/probe", "/usr/lib/probe",
           "/var/log/probe", "/var/lib/probe", "/boot/probe"]


def attempt(what, body):
    try:
        body()
        return {"what": what, "ok": True}
    except OSError as e:
        return {"what": what, "ok": False, "errno": errno.errorcode.get(e.errno, str(e.errno)), "message": str(e)}


def write_file(path):
    def body():
        with open(path, "w") as f:
            f.write("sandbox probe\n")
        os.remove(path)
    return body


def read_home():
    found = []
    for top, dirs, files in os.walk("/home", onerror=lambda e: (_ for _ in ()).throw(e)):
        found += [os.path.join(top, f) for f in files]
    for path in found:
        open(path).read()
    if not found:
        raise OSError(errno.ENOENT, "nothing under /home to read")


def connect(host, port):
    def body():
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.settimeout(5)
            try:
                s.connect((host, port))
            except socket.timeout:
                # What systemd's IP firewall does: its eBPF program drops the SYN, nothing answers.
                raise OSError(errno.ETIMEDOUT, "no answer in 5 s")
    return body


def packet_socket():
    socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3)).close()


def netlink_socket():
    socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0).close()


def open_device(path, flags=os.O_RDWR):
    def body():
        os.close(os.open(path, flags))
    return body


def unshare_namespace():
    # Through libc: os.unshare is new in Python 3.12 (bookworm has 3.11).
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(0x10000000) != 0:  # CLONE_NEWUSER
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--i2c", default="/dev/i2c-0")
    p.add_argument("--gpsd", default="127.0.0.1:2947")
    p.add_argument("--address", help="this machine's own non-loopback address (ssh listens there)")
    p.add_argument("--out", default="/run/moonrunner/sandbox-probe.json")
    a = p.parse_args()
    host, port = a.gpsd.rsplit(":", 1)
    results = [
        # What the daemon needs.
        attempt("write in /var/lib/moonrunner", write_file("/var/lib/moonrunner/probe")),
        attempt("write in /run/moonrunner", write_file("/run/moonrunner/probe")),
        attempt(f"open {a.i2c}", open_device(a.i2c)),
        attempt(f"connect to gpsd at {a.gpsd}", connect(host, int(port))),
        attempt("connect to the system D-Bus", lambda: socket.socket(socket.AF_UNIX).connect(
            "/run/dbus/system_bus_socket")),
    ]
    # What it must not do.
    results += [attempt(f"write {path}", write_file(path)) for path in OUTSIDE]
    results += [
        attempt("read the files under /home", read_home),
        attempt("connect to this machine's own address, port 22 (not loopback)", connect(a.address, 22)),
        attempt("create an AF_PACKET socket", packet_socket),
        attempt("create an AF_NETLINK socket", netlink_socket),
        # Mode 0666 in the image: only the device policy (DevicePolicy=closed) refuses it.
        attempt("open /dev/hvc0 (the GPS's serial line)", open_device("/dev/hvc0")),
        attempt("unshare a user namespace", unshare_namespace),
    ]
    with open(a.out, "w") as f:
        for r in results:
            f.write(json.dumps(r) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
