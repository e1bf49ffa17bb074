#!/usr/bin/env python3
"""Lists the project headers a header pulls in, and holds what a client may see.

Usage: scripts/header_closure.py HEADER [--forbid PREFIX ...] [--root DIR]

Follows `#include "..."` lines (project headers only, relative to the source
root) from HEADER and prints the closure, one header per line. With --forbid,
exits 1 naming the include chain of each forbidden header it reaches: ctest's
style.RouterClientHeaders holds that a client of the router (router/router.h)
does not include the region protocol, the router's or the filters' internals,
or the router's region client and global index.
"""
import argparse
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def closure(root, start):
    """Every project header reachable from `start`, with the header that
    first included it."""
    parent = {start: None}
    todo = [start]
    while todo:
        header = todo.pop()
        path = os.path.join(root, header)
        if not os.path.exists(path):
            continue  # generated or system: not ours to follow
        with open(path, encoding="utf-8") as f:
            for name in INCLUDE.findall(f.read()):
                if name not in parent:
                    parent[name] = header
                    todo.append(name)
    return parent


def chain(parent, header):
    out = [header]
    while parent[out[-1]] is not None:
        out.append(parent[out[-1]])
    return " <- ".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("header")
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    parser.add_argument("--forbid", action="append", default=[],
                        help="a header path or prefix the closure must not reach")
    args = parser.parse_args()
    parent = closure(args.root, args.header)
    bad = sorted(h for h in parent if any(h.startswith(f) for f in args.forbid))
    if not args.forbid:
        for h in sorted(parent):
            print(h)
    for h in bad:
        print(f"{args.header} includes {h}: {chain(parent, h)}", file=sys.stderr)
    if args.forbid and not bad:
        print(f"{args.header}: {len(parent)} project headers, none forbidden")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
