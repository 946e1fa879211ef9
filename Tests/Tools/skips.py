#!/usr/bin/env python3
"""The tests a `make test` run did not run, counted and said at its end.

A test that cannot run on this machine is skipped by the test runner, never
passed: Swift Testing reports a test whose `.enabled(if:_:)` condition is false
as skipped, with its reason, on the console and in the xUnit file that
`swift test --xunit-output FOLDER/NAME.xml` writes
(`FOLDER/NAME-swift-testing.xml`: `<testcase ...><skipped>reason</skipped>`).
A Python tool says `rig.skip(what)`, which adds `tool: what` to
`$MOONRUNNER_SKIP_LOG` (`FOLDER/tools.log`).

`skips.py FOLDER` prints how many tests the xUnit files and the tools' log in
FOLDER say were skipped, by reason.

Targets: none skipped in CI. A developer without root or without the shared
data gets a green run that says what it left out; CI (`.ci/run`) sets
MOONRUNNER_NO_SKIPS=1, because there everything the tests need is present
(`make test` installs the packages, CI runs as root beside ../shared/data), so
a skip means something went missing, and the exit status is 1.

    skips.py .build/test-logs
"""
import argparse
import collections
import glob
import os
import sys
import xml.etree.ElementTree as ET

TOOLS_LOG = "tools.log"


def skipped(folder):
    """(test, reason) of every skip the xUnit files and the tools' log in `folder` report."""
    found = []
    for path in sorted(glob.glob(os.path.join(folder, "*.xml"))):
        for case in ET.parse(path).getroot().iter("testcase"):
            skip = case.find("skipped")
            if skip is not None:
                name = f"{case.get('classname', '?')}/{case.get('name', '?')}"
                found.append((name, (skip.text or skip.get("message") or "no reason given").strip()))
    tools = os.path.join(folder, TOOLS_LOG)
    if os.path.exists(tools):
        with open(tools, encoding="utf-8") as f:
            for line in f:
                tool, _, what = line.rstrip("\n").partition(": ")
                found.append((tool, what))
    return found


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("folder", help="where make test keeps its xUnit files and the tools' log")
    a = p.parse_args()
    if not glob.glob(os.path.join(a.folder, "*.xml")):
        print(f"make test: no xUnit file in {a.folder}: what was skipped cannot be said")
        return 1
    skips = skipped(a.folder)
    if not skips:
        print("make test: no test skipped")
        return 0
    by_reason = collections.defaultdict(list)
    for name, reason in skips:
        by_reason[reason].append(name)
    print(f"make test: {len(skips)} test{'s' if len(skips) != 1 else ''} skipped")
    for reason, names in by_reason.items():
        print(f"  {len(names)} because {reason}:")
        for name in names:
            print(f"    {name}")
    if os.environ.get("MOONRUNNER_NO_SKIPS") == "1":
        print("make test: MOONRUNNER_NO_SKIPS=1 (CI): a skipped test fails the run; give it what it needs")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
