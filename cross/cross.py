#!/usr/bin/env python3
"""The arm64 build of MoonRunner on an amd64 Debian machine, with no arm64 hardware.

A Pi Zero 2 W cannot build Swift, so the arm64 package is cross-built. What
builds it, all made here from Debian's archive and kept in --cache (outside
the clone, so that a second build starts at once):

* the build root: Debian sid (amd64) with Debian's own Swift (`swiftlang`,
  6.2.3: the one Swift whose aarch64 runtime Debian builds), debhelper and
  the aarch64 binutils (dh_strip). Made with mmdebstrap from the mirror of this
  machine's apt sources (debian_mirror.py). Sid's Release file on a mirror may
  be past its date, so apt is told not to check it.
* the sysroot: Debian 13 "trixie" for arm64 (mmdebstrap --arch=arm64, its
  maintainer scripts run by qemu-user-static) with the -dev packages the
  package links (libgps, libi2c, libsystemd, libsqlite3, libgcrypt, zlib,
  libyaml, libstdc++), and the aarch64 Swift resources (the runtime, static
  and dynamic, Foundation, the clang headers) unpacked, not installed, from
  sid's `swiftlang:arm64` and `libswiftlang:arm64`: those packages cannot be
  installed on trixie (sid's glibc), but their files are what the compiler
  needs. Linked with `-static-stdlib`, a binary needs only glibc 2.38, which
  trixie (2.41) has and bookworm (2.36) does not.
* the Swift SDK bundle (`cross/swift-sdk/`: info.json, swift-sdk.json and a
  toolset naming the build root's lld), so that SwiftPM says it itself:
  `swift build --swift-sdks-path /sdks --swift-sdk moonrunner-trixie-arm64`.
* the clean root: a minimal trixie arm64 root (a tarball) that
  `make deb-check ARCH=arm64` installs the package into.

Commands run in the build root (`shell`) see the clone at its own path (so
SwiftPM's absolute paths hold on both sides), the sysroot at /sysroot, the
SDK bundle at /sdks, and a private mount namespace (nothing stays mounted
when they end). arm64 programs run there through binfmt_misc and
qemu-aarch64 with QEMU_LD_PREFIX=/sysroot (the man pages are made by running
the arm64 commands). The packages are resolved on the host (`swift package
resolve`, with the host's git settings) before the build root builds them.

    cross.py roots --cache DIR            make what is missing; print the roots' paths
    cross.py shell --cache DIR [--bind DIR] -- CMD...
                                          run CMD in the build root (in the current folder)
    cross.py clean-root --cache DIR       make the clean trixie arm64 root; print its tarball's path

Each root is remade when its package list (below) or this file's recipe
version changes; `rm -rf DIR` starts from nothing.
"""
import argparse
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys

import debian_mirror

# Sid's Release file on a mirror may be past its Valid-Until date.
NO_VALID_UNTIL = 'Acquire::Check-Valid-Until "false"'
SDK_NAME = "moonrunner-trixie-arm64"
TRIPLE = "aarch64-unknown-linux-gnu"
MULTIARCH = "aarch64-linux-gnu"
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
# Bumped when a recipe below changes in a way the package lists do not show.
RECIPE = 1

BUILD_ROOT_PACKAGES = [
    "swiftlang", "libc6-dev", "make", "git", "pkgconf", "ca-certificates", "dpkg-dev", "debhelper",
    "binutils-aarch64-linux-gnu", "systemd-dev", "python3", "file",
    # The independent readers the export tests check the arm64 build's files with (run natively here).
    "gpsbabel", "librsvg2-bin", "libxml2-utils", "python3-pip",
]
BUILD_ROOT_PIP = ["gpxpy", "garmin-fit-sdk", "fit-tool"]
SYSROOT_PACKAGES = [
    "libc6-dev", "libgcc-14-dev", "libstdc++-14-dev", "libgps-dev", "libi2c-dev", "libsystemd-dev",
    "libsqlite3-dev", "libgcrypt20-dev", "zlib1g-dev", "libyaml-dev", "libtiff-dev", "pkgconf",
]
SWIFT_ARM64_DEBS = ["swiftlang:arm64", "libswiftlang:arm64"]
# Of the aarch64 Swift resources only what a build for Linux reads: not the
# compiler plugins (host/), embedded Swift or the package manifest's runtime (pm/).
SWIFT_RESOURCES = ["swift", "swift_static", "clang"]
SWIFT_RESOURCES_PRUNED = ["swift/host", "swift/embedded", "swift/pm", "swift/migrator"]


def log(msg):
    print(f"cross: {msg}", file=sys.stderr, flush=True)


def run(cmd, **kw):
    kw.setdefault("check", True)
    return subprocess.run(cmd, **kw)


def stamp_of(packages, extra=""):
    return hashlib.sha256(json.dumps([RECIPE, sorted(packages), extra]).encode()).hexdigest()[:16]


def fresh(path, stamp):
    try:
        with open(path + ".stamp") as f:
            return f.read().strip() == stamp
    except OSError:
        return False


def mark(path, stamp):
    with open(path + ".stamp", "w") as f:
        f.write(stamp + "\n")


def ensure_binfmt():
    """qemu-aarch64 registered with binfmt_misc (mounting binfmt_misc first when it is not)."""
    if not os.path.exists("/proc/sys/fs/binfmt_misc/register"):
        run(["mount", "-t", "binfmt_misc", "binfmt_misc", "/proc/sys/fs/binfmt_misc"])
    entry = "/proc/sys/fs/binfmt_misc/qemu-aarch64"
    if not os.path.exists(entry) or "enabled" not in open(entry).read():
        run(["update-binfmts", "--enable", "qemu-aarch64"])
    with open(entry) as f:
        flags = [line for line in f if line.startswith("flags:")]
    # F: the interpreter is opened when registered, so it works inside a chroot too.
    if not flags or "F" not in flags[0]:
        sys.exit("cross: qemu-aarch64 is registered without the F flag (install qemu-user-static, "
                 "not qemu-user-binfmt): it would not run inside the roots")


def mmdebstrap(suite, target, packages, arch=None, variant="apt", mode=None):
    cmd = ["mmdebstrap", f"--variant={variant}", f"--aptopt={NO_VALID_UNTIL}"]
    if arch:
        cmd.append(f"--arch={arch}")
    if packages:
        cmd.append("--include=" + ",".join(packages))
    cmd += [suite, target, debian_mirror.required()]
    log(" ".join(cmd))
    run(cmd)


def build_root(cache):
    """The sid build root; a root made from an older list gets what the list added (apt, pip)."""
    root = os.path.join(cache, "build-root")
    stamp = stamp_of(BUILD_ROOT_PACKAGES + BUILD_ROOT_PIP, extra="checked, pip with the host's CAs")
    if fresh(root, stamp):
        return root
    if not os.path.exists(os.path.join(root, "usr/libexec/swift/bin/swift-build")):
        shutil.rmtree(root, ignore_errors=True)
        mmdebstrap("sid", root, BUILD_ROOT_PACKAGES)
    # Later apt calls in the root (the arm64 Swift packages, added packages) need the same leniency.
    with open(os.path.join(root, "etc/apt/apt.conf.d/90valid-until"), "w") as f:
        f.write(NO_VALID_UNTIL + ";\n")
    # pip trusts the host's certificate authorities, as the host's own tools do (a
    # network behind a proxy with its own CA reaches PyPI only with them).
    host_cas = "/etc/ssl/certs/ca-certificates.crt"
    if os.path.exists(host_cas):
        shutil.copy(host_cas, os.path.join(root, "etc/ssl/host-ca-certificates.crt"))
    cert = "--cert /etc/ssl/host-ca-certificates.crt " if os.path.exists(host_cas) else ""
    if shell_in(root, None, ["sh", "-c", "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "
                             "--no-install-recommends " + " ".join(BUILD_ROOT_PACKAGES) + " >/dev/null && "
                             f"pip3 install -q --root-user-action=ignore --break-system-packages {cert}" + " ".join(BUILD_ROOT_PIP)]) != 0:
        sys.exit(f"cross: the build root's packages ({', '.join(BUILD_ROOT_PACKAGES + BUILD_ROOT_PIP)}) "
                 "could not be installed: see above")
    mark(root, stamp)
    return root


def swift_arm64_files(cache, root):
    """sid's swiftlang:arm64 and libswiftlang:arm64 .debs, downloaded once (about 530 MB)."""
    debs_dir = os.path.join(cache, "swift-arm64-debs")
    version = run(["chroot", root, "dpkg-query", "-W", "-f=${Version}", "swiftlang"],
                  capture_output=True, text=True).stdout.strip()
    debs = sorted(glob.glob(os.path.join(debs_dir, f"*_{version.replace(':', '%3a')}_arm64.deb")))
    if len(debs) == len(SWIFT_ARM64_DEBS):
        return version, debs
    shutil.rmtree(debs_dir, ignore_errors=True)
    os.makedirs(debs_dir)
    inner = "/tmp/swift-arm64-debs"
    shell_in(root, None, ["sh", "-c", "dpkg --add-architecture arm64 && apt-get update -qq && "
                          f"rm -rf {inner} && mkdir -p {inner} && cd {inner} && chown _apt {inner} && "
                          "apt-get download -qq " + " ".join(f"{p}={version}" for p in SWIFT_ARM64_DEBS)])
    for f in glob.glob(os.path.join(root, inner.lstrip("/"), "*.deb")):
        shutil.move(f, debs_dir)
    debs = sorted(glob.glob(os.path.join(debs_dir, "*_arm64.deb")))
    if len(debs) != len(SWIFT_ARM64_DEBS):
        sys.exit(f"cross: expected {SWIFT_ARM64_DEBS} {version} in {debs_dir}, found {debs}")
    return version, debs


def sysroot(cache, root):
    path = os.path.join(cache, "sysroot-arm64")
    version, debs = swift_arm64_files(cache, root)
    stamp = stamp_of(SYSROOT_PACKAGES, version)
    if fresh(path, stamp):
        return path
    shutil.rmtree(path, ignore_errors=True)
    mmdebstrap("trixie", path, SYSROOT_PACKAGES, arch="arm64")
    unpacked = os.path.join(cache, "swift-arm64-unpacked")
    shutil.rmtree(unpacked, ignore_errors=True)
    for deb in debs:
        run(["dpkg-deb", "-x", deb, unpacked])
    lib = os.path.join(path, "usr/libexec/swift/lib")
    os.makedirs(lib, exist_ok=True)
    for part in SWIFT_RESOURCES:
        shutil.copytree(os.path.join(unpacked, "usr/libexec/swift/lib", part), os.path.join(lib, part), symlinks=True)
    for part in SWIFT_RESOURCES_PRUNED:
        shutil.rmtree(os.path.join(lib, part), ignore_errors=True)
    for name in ("swift", "swift_static"):
        link = os.path.join(path, "usr/lib", name)
        if os.path.lexists(link):
            os.remove(link)
        os.symlink(f"../libexec/swift/lib/{name}", link)
    shutil.rmtree(unpacked, ignore_errors=True)
    mark(path, stamp)
    return path


# sid's libraries the aarch64 Swift runtime's own shared libraries need and
# trixie's do not give under the same name: FoundationXML's libxml2 (soname 16;
# trixie has 2). Only the unit tests load them (`make test-arm64`: a debug build
# links the runtime dynamically and the export tests parse XML); the package's
# binaries link the runtime statically and never FoundationXML. Copied beside the
# runtime (its run path), outside the sysroot's dpkg-owned folders, so that
# dpkg-shlibdeps could never take one of them for a trixie library.
TEST_RUNTIME_DEBS = {"libxml2-16:arm64": "usr/lib/aarch64-linux-gnu/libxml2.so.16"}


def test_runtime_libraries(cache, root, sysroot_path):
    """The sid libraries of TEST_RUNTIME_DEBS, beside the aarch64 Swift runtime (once)."""
    runtime = os.path.join(sysroot_path, "usr/libexec/swift/lib/swift/linux")
    for package, member in TEST_RUNTIME_DEBS.items():
        if os.path.exists(os.path.join(runtime, os.path.basename(member))):
            continue
        inner = "/tmp/test-runtime-debs"
        shell_in(root, None, ["sh", "-c", "dpkg --add-architecture arm64 && apt-get update -qq && "
                              f"rm -rf {inner} && mkdir -p {inner} && cd {inner} && chown _apt {inner} && "
                              f"apt-get download -qq {package}"])
        debs = glob.glob(os.path.join(root, inner.lstrip("/"), "*.deb"))
        if len(debs) != 1:
            sys.exit(f"cross: expected one .deb of {package}, found {debs}")
        unpacked = os.path.join(cache, "test-runtime-unpacked")
        shutil.rmtree(unpacked, ignore_errors=True)
        run(["dpkg-deb", "-x", debs[0], unpacked])
        # Under its soname, as the loader looks it up (the deb's soname is a link to the file).
        if os.path.exists(os.path.join(unpacked, member)):
            shutil.copy(os.path.join(unpacked, member), runtime, follow_symlinks=True)
        shutil.rmtree(unpacked, ignore_errors=True)
        if not os.path.exists(os.path.join(runtime, os.path.basename(member))):
            sys.exit(f"cross: {package} has no {member}")


def sdk_bundle(root):
    """The Swift SDK bundle, in the build root at /sdks: the repository's three JSON files and the sysroot."""
    bundle = os.path.join(root, "sdks", f"{SDK_NAME}.artifactbundle")
    variant = os.path.join(bundle, "trixie-arm64")
    shutil.rmtree(bundle, ignore_errors=True)
    os.makedirs(variant)
    shutil.copy(os.path.join(HERE, "swift-sdk/info.json"), bundle)
    for name in ("swift-sdk.json", "toolset.json"):
        shutil.copy(os.path.join(HERE, "swift-sdk", name), variant)
    os.symlink("/sysroot", os.path.join(variant, "sysroot"))
    return bundle


def clean_root(cache):
    """A minimal trixie arm64 root as a tarball, for installing the package into."""
    tar = os.path.join(cache, "trixie-arm64-minbase.tar")
    stamp = stamp_of(["minbase"])
    if fresh(tar, stamp) and os.path.exists(tar):
        return tar
    if os.path.exists(tar):
        os.remove(tar)
    mmdebstrap("trixie", tar + ".part.tar", [], arch="arm64", variant="minbase")
    os.rename(tar + ".part.tar", tar)
    mark(tar, stamp)
    return tar


def roots(cache):
    ensure_binfmt()
    os.makedirs(cache, exist_ok=True)
    root = build_root(cache)
    sysroot_path = sysroot(cache, root)
    test_runtime_libraries(cache, root, sysroot_path)
    sdk_bundle(root)
    return root, sysroot_path


def shell_in(root, sysroot_path, command, cwd=None, env=None, binds=()):
    """Runs `command` in the build root in a private mount namespace: /proc, /dev,
    the clone at its own path, the sysroot at /sysroot and each of `binds` read-only
    at its own path; nothing stays mounted."""
    mounts = ["mount -t proc proc \"$R/proc\"", "mount --rbind /dev \"$R/dev\""]
    for b in binds:
        q = shlex_quote(os.path.abspath(b))
        mounts.append(f"mkdir -p \"$R\"{q} && mount --bind {q} \"$R\"{q} && mount -o remount,bind,ro \"$R\"{q}")
    if sysroot_path:
        mounts.append("mkdir -p \"$R/sysroot\" && mount --rbind \"$S\" \"$R/sysroot\"")
        # Where dpkg-shlibdeps looks for a cross build's libraries (and asks the sysroot's
        # dpkg database whose they are: debian/rules).
        mounts.append(f"mkdir -p \"$R/usr/lib/{MULTIARCH}\" && mount --rbind \"$S/usr/lib/{MULTIARCH}\" "
                      f"\"$R/usr/lib/{MULTIARCH}\"")
        mounts.append("mkdir -p \"$R$REPO\" && mount --rbind \"$REPO\" \"$R$REPO\"")
    script = "set -e; " + "; ".join(mounts) + "; cp /etc/resolv.conf \"$R/etc/resolv.conf\"; " \
        "cd \"$R\"; exec chroot \"$R\" /usr/bin/env -i \"$@\""
    variables = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root", "LC_ALL": "C.UTF-8",
                 "QEMU_LD_PREFIX": "/sysroot",
                 "PKG_CONFIG_PATH": f"/sysroot/usr/lib/{MULTIARCH}/pkgconfig:/sysroot/usr/share/pkgconfig",
                 "PKG_CONFIG_SYSROOT_DIR": "/sysroot"}
    variables.update(env or {})
    inner = [f"{k}={v}" for k, v in variables.items()]
    inner += ["sh", "-c", f"cd {shlex_quote(cwd or '/')} && exec \"$@\"", "sh", *command]
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", *inner],
                          env=dict(os.environ, R=root, S=sysroot_path or "", REPO=REPO)).returncode


def shlex_quote(s):
    import shlex
    return shlex.quote(s)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", choices=["roots", "shell", "clean-root"])
    p.add_argument("--cache", required=True, help="where the roots are kept (outside the clone)")
    p.add_argument("--bind", action="append", default=[], help="with shell: a folder to see read-only at its own path")
    argv = sys.argv[1:]
    command = argv[argv.index("--") + 1:] if "--" in argv else []
    a = p.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    if os.geteuid() != 0:
        sys.exit("cross.py: needs root (mmdebstrap, chroot, mount, binfmt_misc)")
    if a.what == "clean-root":
        ensure_binfmt()
        os.makedirs(a.cache, exist_ok=True)
        print(clean_root(a.cache))
        return 0
    root, sysroot_path = roots(a.cache)
    if a.what == "roots":
        print(f"build root: {root}\nsysroot:    {sysroot_path}")
        return 0
    if not command:
        sys.exit("cross.py shell: no command (cross.py shell --cache DIR -- CMD...)")
    return shell_in(root, sysroot_path, command, cwd=os.getcwd(), binds=a.bind)


if __name__ == "__main__":
    sys.exit(main())
