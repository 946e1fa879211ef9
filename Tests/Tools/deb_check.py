#!/usr/bin/env python3
"""The Debian package in a clean root: install, upgrade,
remove, purge, and the installed units as systemd sees them. As root.

Of this machine's architecture (amd64) the root is Debian 12 "bookworm"; with
`--arch arm64` it is Debian 13 "trixie" for arm64 (the clean root of
cross/cross.py), every program in it run by qemu-user-static: what a
Raspberry Pi OS 13 64-bit user's Pi would do, without the Pi.

piuparts wants to run in its own chroots with its own mirror handling and, for
the upgrade, the previous version from an archive; this does the same steps
with debootstrap (mmdebstrap) and dpkg, with the previous version built here:

1. A minimal root, made once and kept as a tarball; each run unpacks a fresh copy.
2. (arm64) `apt install ./moonrunner_*_arm64.deb` in a fresh root pulls its
   Depends from trixie; the installed daemon records the bundled walk there
   (`make run`'s replay: trixie's arm64 gpsd through gpsfake, the emulated
   MPU-6050 replaying the walk's IMU trace) and its session and exports are
   compared with this machine's release build recording the same replay; and
   `moonrunner analyze` runs every mode on every shared trace there and is
   compared, figure by figure, with this machine's (Tests/Tools/arch_compare.py).
3. The package's dependencies from Debian's archive, the root's file list
   taken as the baseline.
4. The previous version's package: the source at --previous (git archive)
   with this tree's build files laid over it (`make print-build-files`: the
   Makefile and everything it reads besides the sources, so that the old
   source is never asked for a file only the new Makefile knows) and a lower
   version, built once (a full release build) and kept in --cache. It is
   installed (timed), its configuration edited, and its daemon records a
   session into the store.
5. The new package over it (timed): the edited config survives, the units are
   enabled as intended, the binaries run in this clean root (they need only
   its libraries), and the new daemon reads the session the old one wrote.
6. systemd-analyze verify and security --offline=true on the installed units.
7. dpkg -r keeps the store and the config; dpkg -P leaves nothing of the
   package (the service users stay, as Debian's policy has it).
8. A fresh install of the new package alone (timed), then purged.

Emulation gives right answers, not timings: under qemu the install times are
reported, not held to the 5 s target (that is measured on amd64).

    deb_check.py [--arch arm64] --deb-dir .build/deb --previous COMMIT --cache .build/deb-check \
        [--cross-cache ~/.cache/moonrunner-cross] [--data ../shared/data] [--bin .build/release]
"""
import argparse
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import time
import urllib.error
import urllib.request

import rig

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HOST_ARCH = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True).stdout.strip()
# The release each architecture's package is built for (docs/packaging.md, "The Debian package").
RELEASE = {"amd64": "bookworm", "arm64": "trixie"}
# Files the package may leave after purge: the service users and groups it made
# (Debian never removes a system user) and the package manager's own records.
EXPECTED_AFTER_PURGE = ("/etc/passwd", "/etc/group", "/etc/shadow", "/etc/gshadow", "/etc/passwd-", "/etc/group-",
                        "/etc/shadow-", "/etc/gshadow-", "/etc/subuid", "/etc/subgid", "/var/lib/dpkg/",
                        "/var/log/", "/var/cache/", "/var/lib/apt/", "/tmp/", "/proc/", "/root/", "/run/",
                        "/etc/ld.so.cache", "/var/cache/man/", "/var/lib/systemd/catalog/")


def run(cmd, **kw):
    kw.setdefault("check", True)
    return subprocess.run(cmd, **kw)


def base_tarball(cache, arch, cross_cache):
    """A minimal root of the architecture's release, made once: bookworm by debootstrap,
    trixie arm64 by cross/cross.py (mmdebstrap, with qemu-user-static registered)."""
    if arch != HOST_ARCH:
        out = run([sys.executable, os.path.join(ROOT, "cross/cross.py"), "clean-root", "--cache", cross_cache],
                  capture_output=True, text=True)
        return out.stdout.strip().splitlines()[-1]
    tar = os.path.join(cache, "bookworm-minbase.tar")
    if os.path.exists(tar):
        return tar
    root = os.path.join(cache, "base-root")
    if not os.path.exists(os.path.join(root, "usr/bin/dpkg")):
        shutil.rmtree(root, ignore_errors=True)
        mirror = run([sys.executable, os.path.join(ROOT, "cross/debian_mirror.py")], stdout=subprocess.PIPE,
                     text=True).stdout.strip()
        run(["debootstrap", "--variant=minbase", "bookworm", root, mirror])
    with tarfile.open(tar + ".part", "w") as t:
        t.add(root, arcname=".")
    os.rename(tar + ".part", tar)
    shutil.rmtree(root, ignore_errors=True)
    return tar


class Chroot:
    """A fresh copy of the base root with /proc mounted and services kept from starting."""

    def __init__(self, tar, where):
        self.dir = where
        shutil.rmtree(where, ignore_errors=True)
        os.makedirs(where)
        with tarfile.open(tar) as t:
            t.extractall(where, filter="fully_trusted")
        shutil.copy("/etc/resolv.conf", os.path.join(where, "etc/resolv.conf"))
        # No init runs here: maintainer scripts must not try to start services.
        policy = os.path.join(where, "usr/sbin/policy-rc.d")
        with open(policy, "w") as f:
            f.write("#!/bin/sh\nexit 101\n")
        os.chmod(policy, 0o755)
        run(["mount", "-t", "proc", "proc", os.path.join(where, "proc")])

    def sh(self, command, check=True, capture=False):
        env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "DEBIAN_FRONTEND": "noninteractive", "LC_ALL": "C.UTF-8"}
        return run(["chroot", self.dir, "/bin/sh", "-c", command], check=check, env=env,
                   capture_output=capture, text=True)

    def path(self, p):
        return os.path.join(self.dir, p.lstrip("/"))

    def files(self):
        """Every path in the root, for comparing before and after."""
        out = set()
        for top, dirs, names in os.walk(self.dir):
            if top == self.path("/proc"):
                dirs[:] = []
                continue
            for n in dirs + names:
                out.add("/" + os.path.relpath(os.path.join(top, n), self.dir))
        return out

    def close(self):
        proc = self.path("/proc")
        subprocess.run(["umount", "-l", proc])
        if os.path.ismount(proc):
            raise RuntimeError(f"{proc} is still mounted; not removing {self.dir}")
        shutil.rmtree(self.dir, ignore_errors=True)


def build_files():
    """What the current Makefile's build reads besides the sources (its own list)."""
    out = run(["make", "-s", "-C", ROOT, "print-build-files"], capture_output=True, text=True).stdout
    return out.split()


def previous_package(cache, commit, arch, cross_cache):
    """The package of the source at `commit` with this tree's build files, a lower version; built once."""
    short = run(["git", "-C", ROOT, "rev-parse", "--short", commit], capture_output=True, text=True).stdout.strip()
    out = os.path.join(cache, "previous", short)
    debs = glob.glob(os.path.join(out, f"moonrunner_*_{arch}.deb"))
    if debs:
        return debs[0]
    src = os.path.join(cache, "previous-src")
    shutil.rmtree(src, ignore_errors=True)
    os.makedirs(src)
    # The commit's files (git archive: no second work tree registered in the repository).
    archive = subprocess.Popen(["git", "-C", ROOT, "archive", commit], stdout=subprocess.PIPE)
    run(["tar", "-x", "-C", src], stdin=archive.stdout)
    archive.wait()
    try:
        # The packaging's own files, not what an earlier dpkg-buildpackage left in debian/.
        leftovers = shutil.ignore_patterns(".debhelper", "moonrunner", "files", "*.substvars",
                                           "debhelper-build-stamp", "*.debhelper.log", "__pycache__")
        for part in build_files():
            here, there = os.path.join(ROOT, part), os.path.join(src, part)
            if os.path.isdir(here):
                shutil.rmtree(there, ignore_errors=True)
                shutil.copytree(here, there, ignore=leftovers)
            else:
                shutil.copy(here, there)
        version = run(["dpkg-parsechangelog", "-l", os.path.join(ROOT, "debian/changelog"), "-S", "Version"],
                      capture_output=True, text=True).stdout.strip()
        upstream = version.rsplit("-", 1)[0]
        with open(os.path.join(src, "debian/changelog"), "w") as f:
            f.write(f"moonrunner ({upstream}~git.{short}-1) unstable; urgency=medium\n\n"
                    f"  * The source at {short}, before the packaging, with it added (deb_check.py).\n\n"
                    " -- MoonRunner developers <moonrunner@users.noreply.github.com>  Tue, 24 Nov 2026 18:00:00 +0000\n")
        # Before the packaging the announcer was its own binary, not a link to moonrunner.
        run(["make", "-C", src, "deb", f"ARCH={arch}", f"CROSS_CACHE={cross_cache}",
             "COMMANDS=moonrunner moonrunner-announce", "LINKS="])
        os.makedirs(out, exist_ok=True)
        for f in glob.glob(os.path.join(src, f".build/deb/moonrunner_*_{arch}.deb")):
            shutil.copy(f, out)
    finally:
        shutil.rmtree(src, ignore_errors=True)
    return glob.glob(os.path.join(out, f"moonrunner_*_{arch}.deb"))[0]


def depends(deb):
    """The first alternative of each Depends entry, without versions."""
    field = run(["dpkg-deb", "-f", deb, "Depends"], capture_output=True, text=True).stdout
    return [d.split("|")[0].split("(")[0].strip() for d in field.split(",") if d.strip()]


def timed(root, command):
    t0 = time.monotonic()
    r = root.sh(command, check=False, capture=True)
    return time.monotonic() - t0, r


def record_session(root, tag):
    """Runs the installed daemon on the package's state folder with the demo IMU
    replayed (no gpsd here: the GPS is reported lost), records a short session."""
    sock = f"/run/mr-{tag}.sock"
    root.sh(f"rm -f {sock}")
    daemon = subprocess.Popen(["chroot", root.dir, "/usr/sbin/moonrunnerd", "--config", "/etc/moonrunner/moonrunner.yaml",
                               "--socket", sock, "--gpsd", "127.0.0.1:9", "--imu",
                               "replay:/tmp/walk-imu.csv.gz,speed=10,loop"],
                              stdout=subprocess.DEVNULL, stderr=open(root.path(f"/tmp/{tag}.log"), "w"))
    try:
        for _ in range(200):
            if os.path.exists(root.path(sock)):
                break
            time.sleep(0.05)
        return daemon, sock
    except Exception:
        daemon.kill()
        raise


def serves_pairing_page(root, sock, port=18080):
    """Runs the installed moonrunner-web (the link to moonrunnerd) against the
    daemon's socket on loopback; an unpaired browser must get the pairing page."""
    root.sh("rm -rf /tmp/web-state && mkdir -p /tmp/web-state")
    web = subprocess.Popen(["chroot", root.dir, "/usr/sbin/moonrunner-web", "--socket", sock,
                            "--listen", f"127.0.0.1:{port}", "--state-dir", "/tmp/web-state",
                            "--admin-socket", "/tmp/web-state/admin.sock"],
                           stdout=subprocess.DEVNULL, stderr=open(root.path("/tmp/web.log"), "w"))
    try:
        for _ in range(100):
            try:
                # As a browser asks for a page (anything else unpaired is a bare 401).
                urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/",
                                                              headers={"Accept": "text/html"}), timeout=2)
            except urllib.error.HTTPError as e:
                return e.code == 401 and b'action="/pair"' in e.read()
            except OSError:
                time.sleep(0.1)
        return False
    finally:
        stop(web)
        print("moonrunner-web's log: " + open(root.path("/tmp/web.log")).read().strip(), flush=True)


def stop(daemon):
    daemon.terminate()
    try:
        daemon.wait(15)
    except subprocess.TimeoutExpired:
        daemon.kill()
        daemon.wait(5)


def unit_dir(root):
    """Where the package put its units, as dpkg has them: /lib/systemd/system (bookworm's
    debhelper) or /usr/lib/systemd/system (trixie's and later)."""
    listed = root.sh("dpkg -L moonrunner", check=False, capture=True).stdout.split()
    unit = next((f for f in listed if f.endswith("/moonrunnerd.service")), "/lib/systemd/system/moonrunnerd.service")
    return os.path.dirname(unit)


def fresh_install_pulls_depends(check, root, new_deb, release):
    """`apt install ./moonrunner_*.deb` in a root that has none of its Depends (arm64: under qemu)."""
    root.sh("apt-get update -qq")
    seconds, r = timed(root, f"apt-get install -y -qq --no-install-recommends {new_deb}")
    print(r.stdout[-2000:] + r.stderr[-2000:], flush=True)
    deps = depends(new_deb.replace("/tmp/", root.path("/tmp/")))
    status = root.sh("dpkg-query -W -f='${Package} ${Version} ${Status}\\n' " + " ".join(deps) + " moonrunner",
                     check=False, capture=True).stdout
    missing = [d for d in deps if f"{d} " not in status or "install ok installed" not in
               next((l for l in status.splitlines() if l.startswith(d + " ")), "")]
    print(status, flush=True)
    check(r.returncode == 0 and not missing,
          f"apt install ./{os.path.basename(new_deb)} pulls its Depends from {release} ({seconds:.1f} s under emulation)"
          + (f"; missing: {missing}" if missing else ""))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--arch", default=HOST_ARCH, help="the package's architecture (this machine's, or arm64)")
    p.add_argument("--deb-dir", required=True)
    p.add_argument("--previous", required=True, help="the commit whose source is the previous version")
    p.add_argument("--cache", required=True)
    p.add_argument("--cross-cache", default=os.path.expanduser("~/.cache/moonrunner-cross"),
                   help="cross/cross.py's roots (arm64)")
    p.add_argument("--data", default=os.path.join(ROOT, "../shared/data"), help="the shared traces (arm64)")
    p.add_argument("--bin", default=os.path.join(ROOT, ".build/release"),
                   help="this machine's release build, compared with the arm64 package (arm64)")
    a = p.parse_args()
    if os.geteuid() != 0:
        sys.exit("deb_check.py: needs root (debootstrap, chroot, mount)")
    # Stopped (SIGTERM, Ctrl-C) it still unmounts the root's /proc before the root is removed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    os.makedirs(a.cache, exist_ok=True)
    release = RELEASE.get(a.arch, a.arch)
    emulated = a.arch != HOST_ARCH
    new = glob.glob(os.path.join(a.deb_dir, f"moonrunner_*_{a.arch}.deb"))[0]
    checks = rig.Checks()
    check = lambda ok, what: checks.expect(ok, what)
    tar = base_tarball(a.cache, a.arch, a.cross_cache)
    if emulated:
        # What a Raspberry Pi OS 13 user does, then the wearer's day: a recorded walk and analyze.
        root = Chroot(tar, os.path.join(a.cache, "root"))
        try:
            shutil.copy(new, root.path("/tmp/"))
            new_deb = "/tmp/" + os.path.basename(new)
            fresh_install_pulls_depends(check, root, new_deb, release)
            import arch_compare
            arch_compare.recorded_walk(check, root, a.bin, os.path.join(a.cache, "walk"))
            arch_compare.analyze_everywhere(check, root, a.bin, a.data)
        finally:
            root.close()
    old = previous_package(a.cache, a.previous, a.arch, a.cross_cache)
    print(f"new: {os.path.basename(new)}; previous: {os.path.basename(old)}", flush=True)
    root = Chroot(tar, os.path.join(a.cache, "root"))
    try:
        archives = os.path.join(a.cache, "apt-archives")
        os.makedirs(archives, exist_ok=True)
        for f in glob.glob(os.path.join(archives, "*.deb")):
            shutil.copy(f, root.path("/var/cache/apt/archives/"))
        deps = sorted(set(depends(new)) | set(depends(old)))
        root.sh("apt-get update -qq && apt-get install -y -qq --no-install-recommends " + " ".join(deps)
                + " >/tmp/deps.log")
        for f in glob.glob(root.path("/var/cache/apt/archives/*.deb")):
            shutil.copy(f, archives)
        baseline = root.files()
        for deb in (old, new):
            shutil.copy(deb, root.path("/tmp/"))
        shutil.copy(os.path.join(ROOT, "Tests/Fixtures/demo/walk-imu.csv.gz"), root.path("/tmp/"))
        old_deb, new_deb = "/tmp/" + os.path.basename(old), "/tmp/" + os.path.basename(new)
        within = "reported: emulated" if emulated else "target 5 s"

        # The previous version, its config edited, a session recorded.
        seconds, r = timed(root, f"dpkg -i {old_deb}")
        check(r.returncode == 0, f"previous version installs ({seconds:.1f} s)")
        root.sh("sed -i 's/^body_mass_kg: 70 /body_mass_kg: 64 /' /etc/moonrunner/moonrunner.yaml")
        daemon, sock = record_session(root, "old")
        cli = f"moonrunner --socket {sock}"
        started = root.sh(f"{cli} start --activity walk && sleep 4 && {cli} lap && sleep 2 && {cli} stop",
                          check=False, capture=True)
        old_sessions = root.sh(f"{cli} sessions --json", check=False, capture=True).stdout
        stop(daemon)
        check(started.returncode == 0 and '"sessions"' in old_sessions,
              "the previous daemon recorded a session: " + old_sessions.strip()[:160])

        # The new version over it.
        seconds, r = timed(root, f"dpkg -i --force-confdef --force-confold {new_deb}")
        print(r.stdout + r.stderr, flush=True)
        check(r.returncode == 0, f"upgrade installs ({seconds:.1f} s; {within})")
        if not emulated:
            check(seconds <= 5, f"dpkg -i of the upgrade within 5 s ({seconds:.1f} s)")
        check("body_mass_kg: 64" in open(root.path("/etc/moonrunner/moonrunner.yaml")).read(),
              "the edited /etc/moonrunner/moonrunner.yaml survived the upgrade")
        units = unit_dir(root)
        for f in ("/usr/sbin/moonrunnerd", "/usr/sbin/moonrunner-web", "/usr/bin/moonrunner",
                  "/usr/bin/moonrunner-announce", "/usr/share/man/man1/moonrunner.1.gz",
                  "/usr/share/man/man1/moonrunner-announce.1.gz", "/usr/share/man/man5/moonrunner.yaml.5.gz",
                  "/usr/share/man/man7/moonrunner-protocol.7.gz",
                  "/usr/share/man/man8/moonrunnerd.8.gz", "/usr/share/man/man8/moonrunner-web.8.gz",
                  "/usr/lib/sysusers.d/moonrunner.conf", f"{units}/moonrunnerd.service",
                  f"{units}/moonrunnerd.socket", f"{units}/moonrunner-announce.service",
                  f"{units}/moonrunner-web.service", "/etc/moonrunner/moonrunner.yaml",
                  "/etc/moonrunner/announce.yaml"):
            check(os.path.exists(root.path(f)), f"{f} installed")
        # The polkit rule that lets the daemon's user power off through logind (battery.poweroff), and nothing
        # else; polkitd only reads it: the daemon runs without, so the package does not depend on it.
        rule = "/usr/share/polkit-1/rules.d/50-moonrunner-poweroff.rules"
        mode = os.stat(root.path(rule)).st_mode & 0o7777 if os.path.exists(root.path(rule)) else None
        check(mode == 0o644, f"{rule} installed, mode 0644 ({oct(mode) if mode is not None else 'missing'})")
        check(not {"polkitd", "policykit-1", "polkitd-pkla"} & set(depends(new)),
              f"polkitd is not a Depends: {depends(new)}")
        conffiles = root.sh("cat /var/lib/dpkg/info/moonrunner.conffiles", check=False, capture=True).stdout.split()
        # The Avahi service file too: the port it announces is the web app's, which the admin may change.
        check(sorted(conffiles) == ["/etc/avahi/services/moonrunner-web.service", "/etc/moonrunner/announce.yaml",
                                    "/etc/moonrunner/moonrunner.yaml"],
              f"the configuration files are conffiles: {conffiles}")
        ids = root.sh("id moonrunner; id moonrunner-announce; id moonrunner-web", check=False, capture=True).stdout
        check("(i2c)" in ids and "(bluetooth)" in ids and "(audio)" in ids and ids.count("(moonrunner)") >= 3,
              "service users and their groups: " + " | ".join(ids.split("\n")))
        enabled = root.sh("ls /etc/systemd/system/*.wants/", check=False, capture=True).stdout
        check("moonrunnerd.socket" in enabled and "moonrunnerd.service" not in enabled
              and "moonrunner-announce" not in enabled and "moonrunner-web" not in enabled
              and "moonrunner-upload" not in enabled,
              "the control socket enabled (it starts the daemon); the daemon, the announcer, the web app and "
              "the uploads not")
        runs = root.sh("moonrunner --help >/dev/null && moonrunnerd --help >/dev/null"
                       " && moonrunner-announce --help | grep -q 'USAGE: moonrunner-announce'"
                       " && moonrunner-web --help | grep -q 'USAGE: moonrunner-web'"
                       " && ldd /usr/sbin/moonrunnerd /usr/bin/moonrunner", check=False, capture=True)
        print(runs.stdout + runs.stderr, flush=True)
        check(runs.returncode == 0 and "not found" not in runs.stdout,
              f"the binaries run in a clean {release} (only its libraries)")
        daemon, sock = record_session(root, "new")
        new_sessions = root.sh(f"moonrunner --socket {sock} sessions --json", check=False, capture=True).stdout
        shown = root.sh(f"moonrunner --socket {sock} show 1", check=False, capture=True)
        check(serves_pairing_page(root, sock), f"moonrunner-web (the link) serves its pairing page in a clean {release}")
        stop(daemon)
        try:
            kept = json.loads(old_sessions)["sessions"] == json.loads(new_sessions)["sessions"]
        except (ValueError, KeyError):
            kept = False
        check(kept and shown.returncode == 0, "the new daemon reads the session the previous one wrote:\n"
              + shown.stdout.strip())

        # The units as the release's systemd reads them, in the root (no systemd runs as PID 1 here);
        # man-db for their Documentation=man: pages (installed only now: its trigger, which indexes
        # every installed page again, is timed on its own).
        before_man_db = root.files()
        root.sh("apt-get install -y -qq --no-install-recommends man-db >/tmp/man-db.log")
        baseline |= root.files() - before_man_db - {f for f in root.files() if "moonrunner" in f}
        seconds, r = timed(root, "mandb --quiet")
        print(f"man-db's index (its trigger runs it after each dpkg -i on a system with man-db): {seconds:.1f} s",
              flush=True)
        verify = root.sh(f"systemd-analyze verify {units}/moonrunner*", check=False, capture=True)
        print(verify.stdout + verify.stderr, flush=True)
        complaints = [l for l in (verify.stdout + verify.stderr).splitlines() if "moonrunner" in l]
        check(verify.returncode == 0 and not complaints, "systemd-analyze verify on the installed units")
        # Exposure limits (lower is tighter): the daemon's allows for the system bus, which it reaches for a strap.
        for unit, limit in (("moonrunnerd.service", 1.5), ("moonrunner-announce.service", None),
                            ("moonrunner-web.service", 2.0)):
            sec = run(["systemd-analyze", "security", "--offline=true", f"--root={root.dir}", unit],
                      check=False, capture_output=True, text=True)
            verdict = [line for line in sec.stdout.splitlines() if "Overall exposure level" in line]
            print(f"{unit}: {verdict[0].strip() if verdict else sec.stderr.strip()}", flush=True)
            level = float(verdict[0].split(":")[1].split()[0]) if verdict else None
            check(level is not None and (limit is None or level <= limit),
                  f"systemd-analyze security --offline rates {unit}" + (f" at most {limit}" if limit else ""))

        # Remove keeps the wearer's data and the configuration; purge leaves nothing.
        root.sh("dpkg -r moonrunner >/tmp/remove.log")
        check(os.path.isdir(root.path("/var/lib/moonrunner")) and os.path.exists(
            root.path("/etc/moonrunner/moonrunner.yaml")) and not os.path.exists(root.path("/usr/sbin/moonrunnerd")),
              "dpkg -r removes the binaries and keeps /var/lib/moonrunner and /etc/moonrunner")
        root.sh("dpkg -P moonrunner >/tmp/purge.log")
        left = sorted(f for f in root.files() - baseline if not f.startswith(EXPECTED_AFTER_PURGE))
        check(not left, "dpkg -P leaves nothing of the package" + (f": {left[:20]}" if left else ""))
        users = root.sh("getent passwd moonrunner moonrunner-announce moonrunner-web", check=False, capture=True).stdout
        print("left by design (Debian keeps system users): " + " | ".join(users.split("\n")), flush=True)

        # A fresh install of the new version alone.
        seconds, r = timed(root, f"dpkg -i {new_deb}")
        check(r.returncode == 0, f"fresh install of the new version ({seconds:.1f} s; {within})")
        if not emulated:
            check(seconds <= 5, f"dpkg -i of a fresh install within 5 s ({seconds:.1f} s)")
        root.sh("dpkg -P moonrunner >/dev/null")
    finally:
        root.close()
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())
