#!/usr/bin/env python3
"""Measures what STYLE.md bounds: lines per product file and per function.

Usage: scripts/code_sizes.py [--files N] [--functions N] [--max-file L] [--max-function L]

Functions are found with Universal Ctags (`--fields=+ne` gives each definition's
first and last line), so lambdas count towards the function that holds them. Exits 1
when a bound given with --max-file or --max-function is exceeded, so CI can hold it
(tests/style: ctest's style.CodeSizes holds STYLE.md's 800 and 60).
"""
import argparse
import os
import shutil
import subprocess
import sys

PRODUCT_DIRS = ["common", "coord", "http", "index", "model", "ops", "regionstore", "router",
                "thrift", "tls", "tools"]
SUFFIXES = (".cc", ".h", ".thrift")


def product_files(root):
    for top in PRODUCT_DIRS:
        for base, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if name.endswith(SUFFIXES):
                    yield os.path.relpath(os.path.join(base, name), root)


def function_lengths(root, files):
    sources = [f for f in files if f.endswith((".cc", ".h"))]
    ctags = shutil.which("ctags-universal") or shutil.which("ctags") or "ctags"
    out = subprocess.run(
        [ctags, "-x", "--language-force=C++", "--kinds-C++=f", "--fields=+ne",
         "--output-format=xref", "--_xformat=%F %n %{end} %{scope} %N"] + sources,
        cwd=root, check=True, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        parts = line.split(" ")
        if len(parts) < 5 or not parts[2].isdigit():
            continue
        path, start, end, scope, name = parts[0], int(parts[1]), int(parts[2]), parts[3], parts[4]
        full = name if scope in ("-", "") else scope.split(":")[-1] + "::" + name
        rows.append((end - start + 1, path, start, full))
    return sorted(rows, reverse=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    parser.add_argument("--files", type=int, default=10, help="longest files to list")
    parser.add_argument("--functions", type=int, default=10, help="longest functions to list")
    parser.add_argument("--max-file", type=int, default=0, help="fail above this many lines")
    parser.add_argument("--max-function", type=int, default=0,
                        help="fail above this many lines")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    files = list(product_files(root))
    sizes = []
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8") as handle:
            sizes.append((sum(1 for _ in handle), f))
    sizes.sort(reverse=True)
    print(f"{len(files)} product files, {sum(s for s, _ in sizes)} lines; longest:")
    for lines, f in sizes[:args.files]:
        print(f"  {lines:5d}  {f}")
    functions = function_lengths(root, files)
    print(f"{len(functions)} functions; longest:")
    for lines, path, start, name in functions[:args.functions]:
        print(f"  {lines:5d}  {name}  ({path}:{start})")
    failed = False
    if args.max_file and sizes and sizes[0][0] > args.max_file:
        print(f"files over {args.max_file} lines: "
              f"{sum(1 for s, _ in sizes if s > args.max_file)}")
        failed = True
    if args.max_function and functions and functions[0][0] > args.max_function:
        print(f"functions over {args.max_function} lines: "
              f"{sum(1 for f in functions if f[0] > args.max_function)}")
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
