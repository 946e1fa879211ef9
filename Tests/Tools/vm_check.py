#!/usr/bin/env python3
"""The package on a booted system (`make vm-check`): systemd as PID 1 starts MoonRunner.

Boots the image of cross/vm_image.py under qemu-system (software emulation,
2 CPUs, 512 MB: a Pi Zero 2 W's memory), installs the package there with
`apt install ./moonrunner_*.deb` and checks, each printed as a line with its
figure (a failure prints the journal lines that explain it):

1. socket activation: after boot the socket listens and the daemon is not
   running; the first `moonrunner status` starts it; READY=1 reaches systemd;
   the socket's owner, group and mode;
2. the sandbox lets the daemon do its job: the I2C bus through the kernel
   (i2c-stub at 0x68 with an MPU-6050's identity; and a drop-in without
   `DeviceAllow=` as the control that fails), gpsd (the release's, socket-activated,
   reading the GPS's serial line) with a walk recorded in the guest compared
   with this machine's build recording the same replay, BlueZ without an
   adapter, the journal's priorities;
3. the sandbox forbids what it claims (vm_probe.py inside the unit);
4. the watchdog restarts a stopped daemon and the session goes on;
5. power cuts: qemu killed ten times during a recording;
6. a clean `systemctl poweroff` during a recording;
7. the web app's pairing page and the announcer, enabled;
8. memory: an hour-long session with everything running in 512 MB;
9. time from the kernel's start to READY=1;
10. the upload service: active under systemd, set up through its socket, a
    stopped session sent to a WebDAV folder on loopback byte for byte, its
    security rating, a non-root user of the control group reading its status.

ARCH=amd64 boots Debian 12 amd64 and runs checks 1-7 and 10.

    vm_check.py --arch arm64 --deb-dir .build/deb --cache ~/.cache/moonrunner-vm \\
        --bin .build/release [--cuts 10] [--checks 1,2,...] [--work DIR] [--keep]
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

import rig
import vm_durability
import vm_system
import vm_upload
from vm_guest import Guest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ALL = {"arm64": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "amd64": [1, 2, 3, 4, 5, 6, 7, 10]}


def image(arch, deb, cache):
    """The cached image's folder (made when missing or when its package list changed); seconds taken."""
    t0 = time.monotonic()
    out = subprocess.run([sys.executable, os.path.join(ROOT, "cross/vm_image.py"), "--arch", arch, "--deb", deb,
                          "--cache", cache], check=True, stdout=subprocess.PIPE, text=True).stdout
    return out.strip().splitlines()[-1], time.monotonic() - t0


def install(check, guest, deb):
    """`apt install ./moonrunner_*.deb` in the booted guest, its Depends already there (no network)."""
    name = os.path.basename(deb)
    guest.put(deb, f"/root/{name}")
    t0 = time.monotonic()
    r = guest.ssh(f"DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends ./{name} 2>&1",
                  check=False, timeout=1200)
    took = time.monotonic() - t0
    check.expect(r.returncode == 0, f"apt install ./{name} in the booted guest ({took:.0f} s under emulation)",
                 r.stdout[-3000:])
    return r.returncode == 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--arch", default="arm64", choices=sorted(ALL))
    p.add_argument("--deb-dir", required=True)
    p.add_argument("--cache", required=True, help="where vm_image.py keeps images (outside the clone)")
    p.add_argument("--bin", default=os.path.join(ROOT, ".build/release"),
                   help="this machine's release build (the walk's reference recording)")
    p.add_argument("--schemas", default=os.path.join(ROOT, ".build/schemas"), help="GPX 1.1 schema folder")
    p.add_argument("--cuts", type=int, default=10, help="power cuts (check 5)")
    p.add_argument("--checks", help="comma-separated check numbers (default: all for the architecture)")
    p.add_argument("--seed", type=int, default=38)
    p.add_argument("--work", help="a folder for the guest's disk and logs (default: a temporary one)")
    p.add_argument("--keep", action="store_true", help="keep the work folder")
    a = p.parse_args()
    if os.geteuid() != 0:
        sys.exit("vm_check.py: needs root (vm_image.py: mmdebstrap, chroot)")
    debs = glob.glob(os.path.join(a.deb_dir, f"moonrunner_*_{a.arch}.deb"))
    if len(debs) != 1:
        sys.exit(f"vm_check.py: expected one moonrunner_*_{a.arch}.deb in {a.deb_dir}, found {debs}")
    wanted = [int(c) for c in a.checks.split(",")] if a.checks else ALL[a.arch]
    work = a.work or tempfile.mkdtemp(prefix="mr-vm-")
    check = rig.Checks()
    started = time.monotonic()
    image_dir, took = image(a.arch, debs[0], a.cache)
    print(f"image {image_dir} ready in {took:.0f} s", flush=True)
    guest = Guest(image_dir, a.arch, os.path.join(work, "guest"))
    context = vm_system.Context(guest=guest, arch=a.arch, work=work, bin_dir=a.bin, schemas=a.schemas,
                                seed=a.seed, cuts=a.cuts)
    try:
        boot = guest.boot()
        print(f"booted to ssh in {boot:.0f} s", flush=True)
        if install(check, guest, debs[0]):
            vm_system.prepare(context)
            for number in wanted:
                print(f"check {number}", flush=True)
                runner = {**vm_system.CHECKS, **vm_durability.CHECKS, **vm_upload.CHECKS}[number]
                try:
                    runner(check, context)
                except Exception as e:  # a check that breaks is a failed check; the others still run
                    check.expect(False, f"check {number} ran to its end", f"{type(e).__name__}: {e}\n"
                                 + vm_system.explain(context))
    finally:
        guest.close()
        if not a.keep and not a.work:
            shutil.rmtree(work, ignore_errors=True)
    print()
    return check.summary(f" in {(time.monotonic() - started) / 60:.1f} min")


if __name__ == "__main__":
    sys.exit(main())
