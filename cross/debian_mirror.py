#!/usr/bin/env python3
"""The Debian mirror this machine's apt uses, for the roots and images made here.

A user behind a local mirror or a caching proxy has it in their apt sources;
the cross roots (cross.py), the clean roots of deb_check.py and the booted
images (vm_image.py) take it from there, so that nothing fetches from a host
the machine's own apt would not use. $DEBIAN_MIRROR overrides it.

Read: /etc/apt/sources.list and /etc/apt/sources.list.d/*.list (one-line
form) and *.sources (deb822); the first `deb` entry of component `main`
whose suite is a Debian release (not -security, -updates or -backports) and
whose archive is `debian` (not debian-security, debian-ports).

    debian_mirror.py        prints the mirror's URI
"""
import glob
import os
import re
import sys

RELEASE_SUITES = {"stable", "testing", "unstable", "sid", "bookworm", "trixie", "forky", "duke"}


def _one_line_entries(text):
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line.startswith("deb "):
            continue
        line = re.sub(r"\[[^\]]*\]", " ", line)
        fields = line.split()
        if len(fields) >= 4:
            yield fields[1], [fields[2]], fields[3:]


def _deb822_entries(text):
    for stanza in re.split(r"\n\s*\n", text):
        fields, key = {}, None
        for line in stanza.splitlines():
            if line.lstrip().startswith("#"):
                continue
            if line[:1] in (" ", "\t") and key:
                fields[key] += " " + line.strip()
            elif ":" in line:
                key, value = line.split(":", 1)
                key = key.strip().lower()
                fields[key] = value.strip()
        if "deb" not in fields.get("types", "").split() or fields.get("enabled", "yes").lower() == "no":
            continue
        for uri in fields.get("uris", "").split():
            yield uri, fields.get("suites", "").split(), fields.get("components", "").split()


def mirror(root="/"):
    """The mirror's URI, or None when the sources name no Debian release archive."""
    override = os.environ.get("DEBIAN_MIRROR")
    if override:
        return override
    etc = os.path.join(root, "etc/apt")
    files = [os.path.join(etc, "sources.list")] + sorted(glob.glob(os.path.join(etc, "sources.list.d/*.list"))) \
        + sorted(glob.glob(os.path.join(etc, "sources.list.d/*.sources")))
    for path in files:
        try:
            text = open(path).read()
        except OSError:
            continue
        entries = _deb822_entries(text) if path.endswith(".sources") else _one_line_entries(text)
        for uri, suites, components in entries:
            archive = uri.rstrip("/").rsplit("/", 1)[-1]
            if archive != "debian" or "main" not in components:
                continue
            if any(s in RELEASE_SUITES for s in suites):
                return uri.rstrip("/")
    return None


def required():
    """The mirror, or an exit naming what to do."""
    uri = mirror()
    if not uri:
        sys.exit("no Debian mirror in this machine's apt sources (/etc/apt/sources.list, sources.list.d): "
                 "add one, or set DEBIAN_MIRROR=URI")
    return uri


if __name__ == "__main__":
    print(required())
