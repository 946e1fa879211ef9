#!/usr/bin/env python3
"""The packaging's fast checks on the release build, seconds in `make test`.

- Every shipped binary needs only Debian's libraries: none of its NEEDED
  entries is a Swift runtime or Foundation library, it has no RPATH/RUNPATH
  (nothing is loaded from beside it or from the toolchain), and `ldd` finds
  every library on this system.
- Each command that is a link to `moonrunner` (the announcer) runs as itself
  when called by its name: the package installs it as a link.
- Each user command carries no ICU data: no `icudt*_dat` symbol in its
  unstripped binary. ICU's locale data is 34 MB, and a static binary that uses
  anything of the full Foundation (rather than FoundationEssentials) links all
  of it. The daemon needs the full Foundation (GRDB and Yams import it), so it
  carries one copy, which is reported, not refused.

    package_check.py --bin .build/release --daemons moonrunnerd --commands moonrunner --links moonrunner-announce
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import rig

# What a static Swift build must no longer load from the system.
SWIFT_RUNTIME = re.compile(r"swift|Foundation|dispatch|BlocksRuntime|_FoundationICU|icu", re.I)


def dynamic_section(binary):
    out = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True, check=True).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", out)
    paths = re.findall(r"\((?:RPATH|RUNPATH)\)\s+Library r(?:un)?path: \[(.+?)\]", out)
    return needed, paths


def icu_symbols(binary):
    out = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
    return re.findall(r"\b(icudt\d+_dat)\b", out)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    rig.common_args(p, data=False, check=False)
    p.add_argument("--daemons", required=True, help="shipped executables that may carry ICU (space separated)")
    p.add_argument("--commands", required=True, help="shipped executables that must not (space separated)")
    p.add_argument("--links", default="", help="commands shipped as links to moonrunner (space separated)")
    p.add_argument("--daemon-links", default="", help="services shipped as links to moonrunnerd (space separated)")
    a = p.parse_args()
    failures = []
    with tempfile.TemporaryDirectory() as links:
        for target, names in (("moonrunner", a.links.split()), ("moonrunnerd", a.daemon_links.split())):
            for name in names:
                os.symlink(os.path.abspath(os.path.join(a.bin, target)), os.path.join(links, name))
                usage = subprocess.run([os.path.join(links, name), "--help"], capture_output=True, text=True).stdout
                ok = f"USAGE: {name} " in usage
                print(f"{name:<20} a link to {target}: {'runs as itself' if ok else 'does NOT run as itself'}")
                if not ok:
                    failures.append(f"{name}: {target} called as {name} does not run it (USAGE line: "
                                    f"{next((l for l in usage.splitlines() if 'USAGE' in l), 'none')})")
    for name in a.daemons.split() + a.commands.split():
        binary = os.path.join(a.bin, name)
        if not os.path.exists(binary):
            failures.append(f"{name}: not built ({binary})")
            continue
        needed, paths = dynamic_section(binary)
        swift = [n for n in needed if SWIFT_RUNTIME.search(n)]
        missing = [line.split()[0] for line in subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
                   .splitlines() if "not found" in line]
        icu = icu_symbols(binary)
        size = os.path.getsize(binary) / 1e6
        print(f"{name:<20} {size:6.1f} MB unstripped; needs {', '.join(needed)}"
              + (f"; ICU data {icu[0]}" if icu else "; no ICU data"))
        if swift:
            failures.append(f"{name}: loads the Swift runtime from the system ({', '.join(swift)}): not a static build")
        if paths:
            failures.append(f"{name}: has a run path ({', '.join(paths)}); build with --disable-local-rpath")
        if missing:
            failures.append(f"{name}: libraries not found: {', '.join(missing)}")
        if icu and name in a.commands.split():
            failures.append(f"{name}: carries ICU data ({icu[0]}): something it links imports the full Foundation "
                            "(use FoundationEssentials; see the ICU notes in docs/packaging.md)")
    for f in failures:
        print(f"FAIL {f}")
    names = a.daemons.split() + a.commands.split() + a.links.split() + a.daemon_links.split()
    failed = {f.split(":")[0] for f in failures}
    print(f"{len(names) - len(failed)} passed, {len(failed)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
