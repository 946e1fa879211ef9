#!/usr/bin/env python3
"""A bootable Debian disk image for `make vm-check`: the wearer's Pi, booted under qemu-system.

Debian 13 "trixie" for arm64 (a Raspberry Pi OS 13 64-bit stand-in, booted with
qemu-system-aarch64 -M virt) or Debian 12 "bookworm" for amd64, made from the
mirror of this machine's apt sources (debian_mirror.py) and kept in --cache,
outside the clone, like the cross roots:

* the root: mmdebstrap (minbase) with systemd as init, Debian's kernel, udev,
  D-Bus, BlueZ, gpsd, i2c-tools, ALSA and espeak-ng, an ssh server (the
  checks' way in, through a port forward on 127.0.0.1), python3 and sqlite3
  for the checks, and the Depends of the package to be checked (the guest
  reaches nothing outside, so `apt install ./moonrunner_*.deb` must find them
  installed);
* i2c-stub: Debian's kernels leave it out (`# CONFIG_I2C_STUB is not set`),
  so the one module is built out of tree when the image is made, from its
  source in the release's `linux-source` package against the image kernel's
  `linux-headers`, compiled in the root (arm64: under qemu-user-static);
  the build packages are purged again and nothing of the kernel's source is
  kept. It is loaded at boot from /etc/modules with `chip_addr=0x68`, as
  Raspberry Pi OS loads i2c-dev;
* the GPS as a Pi's UART HAT is one: a serial line. qemu's virtconsole is the
  guest's /dev/hvc0 (group dialout, as /dev/serial0 is on a Pi), the host
  feeds NMEA into it, and trixie's gpsd reads it, started by gpsd.socket
  on the first client;
* a persistent journal (after a power cut the journal of the boot that was
  cut is still there), systemd-networkd with DHCP on qemu's user network,
  and a user with a file in /home (the sandbox check reads it);
* the image: `mke2fs -t ext4 -d ROOT` (no loop mount), the kernel and initrd
  beside it.

Two layers are kept: the base (everything but the package's Depends, as a
tarball: the slow part) and the image (the base, the Depends, the checks'
configuration). The base is remade when its package list or RECIPE changes,
the image when the base or the package's Depends do; `rm -rf CACHE` starts
from nothing.

    vm_image.py --arch arm64|amd64 --deb PACKAGE.deb --cache DIR    prints the image folder
    vm_image.py --arch arm64|amd64 --cache DIR                      makes the base only
"""
import argparse
import glob
import hashlib
import inspect
import json
import os
import shutil
import subprocess
import sys

import debian_mirror

# Bumped when the recipe below changes in a way the package lists do not show.
RECIPE = 1
RELEASE = {"arm64": "trixie", "amd64": "bookworm"}
KERNEL = {"arm64": "linux-image-arm64", "amd64": "linux-image-amd64"}
HEADERS = {"arm64": "linux-headers-arm64", "amd64": "linux-headers-amd64"}
CONSOLE = {"arm64": "ttyAMA0", "amd64": "ttyS0"}
BASE_PACKAGES = [
    "systemd-sysv", "udev", "kmod", "dbus", "e2fsprogs", "iproute2", "openssh-server", "ca-certificates",
    "bluez", "gpsd", "i2c-tools", "alsa-utils", "espeak-ng", "python3", "sqlite3",
    "procps", "libjs-leaflet", "qrencode",
]
# Only while the image is made: the i2c-stub module's build.
BUILD_PACKAGES = ["gcc", "make", "linux-source", "xz-utils"]
IMAGE_SIZE = "3G"
# The checks' user with something to hide in /home (ProtectHome=yes must hide it from the daemon).
HOME_USER = "alice"


def log(msg):
    print(f"vm_image: {msg}", file=sys.stderr, flush=True)


def run(cmd, **kw):
    kw.setdefault("check", True)
    return subprocess.run(cmd, **kw)


def depends_of(deb):
    """The first alternative of each Depends entry of the package, without versions."""
    field = run(["dpkg-deb", "-f", deb, "Depends"], capture_output=True, text=True).stdout
    return sorted({d.split("|")[0].split("(")[0].strip() for d in field.split(",") if d.strip()})


def chroot(root, command, check=True):
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "DEBIAN_FRONTEND": "noninteractive", "LC_ALL": "C.UTF-8"}
    script = (f'set -e; mount -t proc proc "$R/proc"; mount --rbind /dev "$R/dev"; '
              f'exec chroot "$R" /bin/sh -c {shell_quote(command)}')
    return run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script], check=check,
               env=dict(env, R=root))


def shell_quote(s):
    import shlex
    return shlex.quote(s)


def write(root, path, text, mode=0o644):
    full = os.path.join(root, path.lstrip("/"))
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)
    os.chmod(full, mode)


def build_i2c_stub(root):
    """i2c-stub.ko for the image's kernel, from the release's kernel source; installed under updates/."""
    versions = sorted(os.listdir(os.path.join(root, "lib/modules")))
    if len(versions) != 1:
        sys.exit(f"vm_image: expected one kernel in the root, found {versions}")
    kver = versions[0]
    tarballs = glob.glob(os.path.join(root, "usr/src/linux-source-*.tar.xz"))
    if len(tarballs) != 1:
        sys.exit(f"vm_image: expected one linux-source tarball, found {tarballs}")
    work = os.path.join(root, "usr/src/i2c-stub")
    os.makedirs(work, exist_ok=True)
    # Unpacked by the host's tar (the one file: unpacking under emulation would take minutes).
    top = os.path.basename(tarballs[0])[:-len(".tar.xz")]
    run(["tar", "-xJf", tarballs[0], "-C", work, "--strip-components=3", f"{top}/drivers/i2c/i2c-stub.c"])
    write(root, "/usr/src/i2c-stub/Kbuild", "obj-m := i2c-stub.o\n")
    chroot(root, f"make -s -C /lib/modules/{kver}/build M=/usr/src/i2c-stub modules && "
                 f"install -D -m 0644 /usr/src/i2c-stub/i2c-stub.ko /lib/modules/{kver}/updates/i2c-stub.ko && "
                 f"depmod {kver} && modinfo -F vermagic /lib/modules/{kver}/updates/i2c-stub.ko")
    return kver


def configure(root, arch, public_key):
    """What the checks need of the booted system; nothing of MoonRunner (the check installs it)."""
    write(root, "/etc/hostname", "wearable\n")
    write(root, "/etc/hosts", "127.0.0.1 localhost\n127.0.1.1 wearable\n::1 localhost ip6-localhost\n")
    write(root, "/etc/fstab", "/dev/vda / ext4 defaults,errors=remount-ro 0 1\n")
    write(root, "/etc/systemd/network/10-wired.network", "[Match]\nType=ether\n\n[Network]\nDHCP=ipv4\n")
    write(root, "/root/.ssh/authorized_keys", public_key, 0o600)
    # Raspberry Pi OS loads the bus's character devices at boot from /etc/modules.
    write(root, "/etc/modules", "i2c-dev\ni2c-stub\n")
    write(root, "/etc/modprobe.d/i2c-stub.conf", "options i2c-stub chip_addr=0x68\n")
    # The GPS's serial line: group dialout as a Pi's /dev/serial0 is.
    # (Mode 0666 only here: so that nothing but the daemon's device policy keeps it from the line, check 3.)
    write(root, "/etc/udev/rules.d/60-gps-serial.rules", 'KERNEL=="hvc0", GROUP="dialout", MODE="0666"\n')
    # The MPU-6050 at power-on: i2c-stub's registers start at zero, a chip's WHO_AM_I does not.
    write(root, "/usr/local/sbin/vmcheck-mpu6050", "#!/bin/sh\n# An MPU-6050's identity on i2c-stub's chip at 0x68.\n"
          "bus=$(i2cdetect -l | awk '/stub/ {sub(\"i2c-\", \"\", $1); print $1; exit}')\n"
          '[ -n "$bus" ] || exit 0\n'
          'i2cset -y "$bus" 0x68 0x75 0x68 && i2cset -y "$bus" 0x68 0x6b 0x40\n', 0o755)
    write(root, "/etc/systemd/system/vmcheck-mpu6050.service",
          "[Unit]\nDescription=An MPU-6050's identity on i2c-stub (vm-check)\n"
          "After=systemd-modules-load.service\nBefore=moonrunnerd.service\n\n"
          "[Service]\nType=oneshot\nExecStart=/usr/local/sbin/vmcheck-mpu6050\n\n"
          "[Install]\nWantedBy=multi-user.target\n")
    write(root, "/etc/default/gpsd", 'START_DAEMON="true"\nUSBAUTO="false"\nDEVICES="/dev/hvc0"\n'
                                     'GPSD_OPTIONS="-n -b"\n')
    os.makedirs(os.path.join(root, "var/log/journal"), exist_ok=True)
    # gpsd.service's Also=gpsd.socket: disabling the service disables the socket too, so that comes first.
    chroot(root, "systemctl disable gpsd.service 2>/dev/null; "
                 "systemctl enable systemd-networkd gpsd.socket ssh vmcheck-mpu6050 && "
                 # hvc0 is the GPS, not a login console.
                 "systemctl mask serial-getty@hvc0.service && "
                 f"useradd --create-home --shell /bin/sh {HOME_USER} && "
                 f"echo 'a runner who keeps secrets' > /home/{HOME_USER}/secret && "
                 # Readable by anyone (Debian makes homes 0700): only ProtectHome= keeps the daemon out.
                 f"chmod 0755 /home/{HOME_USER} && chmod 0644 /home/{HOME_USER}/secret && passwd -d root >/dev/null && "
                 # Writable by anyone: only the sandbox keeps the daemon out (check 3).
                 f"install -d -m 1777 /srv/open && install -d -m 0777 -o {HOME_USER} /home/{HOME_USER}/open")
    # Only the image's own kernel console (the checks talk through ssh).
    write(root, "/etc/issue", f"MoonRunner vm-check guest ({RELEASE[arch]} {arch})\n")


def fresh(path, stamp):
    try:
        return open(path + ".stamp").read().strip() == stamp and os.path.exists(path)
    except OSError:
        return False


def mark(path, stamp):
    with open(path + ".stamp", "w") as f:
        f.write(stamp + "\n")


def stamp_of(*parts):
    return hashlib.sha256(json.dumps([RECIPE, *parts]).encode()).hexdigest()[:16]


def make_base(cache, arch):
    """The system without the package's Depends, as a tarball: the slow part (mmdebstrap, the
    kernel module built under emulation), kept while the base list is unchanged."""
    release = RELEASE[arch]
    packages = sorted(set(BASE_PACKAGES + [KERNEL[arch]]))
    tar = os.path.join(cache, f"{release}-{arch}-base.tar")
    stamp = stamp_of(release, arch, packages, BUILD_PACKAGES)
    if fresh(tar, stamp):
        return tar, stamp
    root = os.path.join(cache, f"{release}-{arch}-base")
    shutil.rmtree(root, ignore_errors=True)
    cmd = ["mmdebstrap", "--variant=minbase", f"--arch={arch}", "--aptopt=Acquire::Check-Valid-Until \"false\"",
           "--include=" + ",".join(packages + [HEADERS[arch]] + BUILD_PACKAGES), release, root,
           debian_mirror.required()]
    log(" ".join(cmd))
    run(cmd)
    build_i2c_stub(root)
    chroot(root, f"apt-get purge -y -qq --autoremove {HEADERS[arch]} 'linux-headers-*' 'linux-kbuild-*' "
                 "'linux-source*' gcc make >/dev/null && apt-get clean && rm -rf /usr/src/*")
    run(["tar", "-C", root, "--numeric-owner", "--xattrs", "-cf", tar + ".part", "."])
    os.rename(tar + ".part", tar)
    shutil.rmtree(root)
    mark(tar, stamp)
    return tar, stamp


def make_image(cache, arch, deb):
    """The disk image: the base, the package's Depends, the checks' configuration."""
    release = RELEASE[arch]
    base, base_stamp = make_base(cache, arch)
    depends = depends_of(deb)
    out = os.path.join(cache, f"{release}-{arch}")
    # configure()'s text is part of the stamp: a change to it remakes the image (not the base).
    stamp = stamp_of(base_stamp, depends, inspect.getsource(configure))
    if fresh(os.path.join(out, "disk.raw"), stamp):
        return out
    shutil.rmtree(out, ignore_errors=True)
    root = os.path.join(out, "root")
    os.makedirs(root)
    run(["tar", "-C", root, "--numeric-owner", "--xattrs", "-xf", base])
    shutil.copy("/etc/resolv.conf", os.path.join(root, "etc/resolv.conf"))
    write(root, "/etc/apt/sources.list", f"deb {debian_mirror.required()} {release} main\n")
    write(root, "/usr/sbin/policy-rc.d", "#!/bin/sh\nexit 101\n", 0o755)
    chroot(root, "apt-get -o Acquire::Check-Valid-Until=false update -qq && apt-get install -y -qq "
                 "--no-install-recommends " + " ".join(depends) + " >/dev/null && apt-get clean && "
                 "rm -rf /var/lib/apt/lists/* /usr/sbin/policy-rc.d")
    write(root, "/etc/resolv.conf", "")
    key = os.path.join(out, "id_ed25519")
    run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "vm-check", "-f", key])
    configure(root, arch, open(key + ".pub").read())
    kver = sorted(os.listdir(os.path.join(root, "lib/modules")))[-1]
    shutil.copy(os.path.join(root, "boot", f"vmlinuz-{kver}"), os.path.join(out, "vmlinuz"))
    shutil.copy(os.path.join(root, "boot", f"initrd.img-{kver}"), os.path.join(out, "initrd.img"))
    run(["mke2fs", "-q", "-t", "ext4", "-L", "root", "-d", root, os.path.join(out, "disk.raw"), IMAGE_SIZE])
    shutil.rmtree(root)
    with open(os.path.join(out, "image.json"), "w") as f:
        json.dump({"release": release, "arch": arch, "kernel": kver, "console": CONSOLE[arch],
                   "depends": depends}, f, indent=1)
    mark(os.path.join(out, "disk.raw"), stamp)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--arch", choices=sorted(RELEASE), required=True)
    p.add_argument("--deb", help="the package the image is for (its Depends go into the image); "
                                 "without it only the base is made")
    p.add_argument("--cache", required=True, help="where images are kept (outside the clone)")
    a = p.parse_args()
    if os.geteuid() != 0:
        sys.exit("vm_image.py: needs root (mmdebstrap, chroot)")
    if a.arch != "amd64":
        import cross
        cross.ensure_binfmt()
    os.makedirs(a.cache, exist_ok=True)
    print(make_image(a.cache, a.arch, a.deb) if a.deb else make_base(a.cache, a.arch)[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
