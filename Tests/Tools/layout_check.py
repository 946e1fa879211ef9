#!/usr/bin/env python3
"""The size rules of the house: no file in Sources/ over 500 lines,
no function over 60; and the README's layout names every module and no other.

A file that grows past 500 lines holds more than one job, and a function past
60 lines more than one step; both are where the next feature would land on
top. A function is counted from its declaration to its closing brace, blank
lines and comments inside included: `func`, `init`, `deinit` and `subscript`
(closures and computed properties are counted as part of what holds them).

    layout_check.py [--sources Sources] [--max-file 500] [--max-function 60]

The README's "### Layout" table has one row per folder of Sources/ (a row may
name several, as the C module maps share one): a folder added or renamed without
its row, or a row left for a folder that is gone, is refused like a long file.

Prints every file and function over its limit and every mismatch, and exits 1
if there is one.
"""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DECL = re.compile(r"^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*"
                  r"(?:(?:public|private|fileprivate|internal|package|static|class|final|override|mutating|"
                  r"nonmutating|nonisolated|convenience|required|dynamic|consuming|borrowing|isolated)"
                  r"(?:\([^)]*\))?\s+)*"
                  r"(func\s+[^\s(<]+|init[?!]?(?=\s*[(<])|deinit(?=\s*\{)|subscript(?=\s*[(<]))")
STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def code_of(line):
    """The line without string literals and its trailing comment (braces in them do not count)."""
    return STRING.sub('""', line).split("//")[0]


def functions(lines):
    """(first line, length, name) of each function whose body opens within its next 10 lines."""
    found = []
    in_multiline_string = False
    for i, line in enumerate(lines):
        if line.count('"""') % 2 == 1:
            in_multiline_string = not in_multiline_string
            continue
        if in_multiline_string:
            continue
        m = DECL.match(line)
        if not m:
            continue
        depth, opened, j = 0, False, i
        while j < len(lines):
            for ch in code_of(lines[j]):
                if ch == "{":
                    depth, opened = depth + 1, True
                elif ch == "}":
                    depth -= 1
            if opened and depth <= 0:
                break
            if not opened and (j > i + 10 or (j > i and DECL.match(lines[j]))):
                break  # a requirement in a protocol: no body
            j += 1
        if opened:
            found.append((i + 1, j - i + 1, m.group(1)))
    return found


def readme_modules(readme):
    """The folders the README's "### Layout" table names in its first column."""
    text = open(readme, encoding="utf-8").read()
    table = text.split("### Layout", 1)[1].split("\n\n|", 1)[-1] if "### Layout" in text else ""
    names = set()
    for line in table.split("\n"):
        if not line.startswith("|"):
            if names:
                break
            continue
        names.update(re.findall(r"`([^`]+)`", line.split("|")[1]))
    return names


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sources", default=os.path.join(ROOT, "Sources"))
    p.add_argument("--max-file", type=int, default=500)
    p.add_argument("--max-function", type=int, default=60)
    a = p.parse_args()
    over = []
    files = 0
    for top, _, names in sorted(os.walk(a.sources)):
        for name in sorted(names):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(top, name)
            rel = os.path.relpath(path, ROOT)
            lines = open(path, encoding="utf-8").read().split("\n")
            files += 1
            if len(lines) - 1 > a.max_file:
                over.append(f"{rel}: {len(lines) - 1} lines (at most {a.max_file})")
            for first, length, what in functions(lines):
                if length > a.max_function:
                    over.append(f"{rel}:{first}: {what} is {length} lines (at most {a.max_function})")
    modules = {d for d in os.listdir(a.sources) if os.path.isdir(os.path.join(a.sources, d))}
    named = readme_modules(os.path.join(ROOT, "README.md"))
    over += [f"README.md: Layout has no row for Sources/{m}" for m in sorted(modules - named)]
    over += [f"README.md: Layout names {m}, which is not a folder of Sources/" for m in sorted(named - modules)]
    for o in over:
        print(o)
    print(f"layout: {files} files in {os.path.relpath(a.sources, ROOT)}, {len(over)} over the limits "
          f"({a.max_file} lines a file, {a.max_function} a function)")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
