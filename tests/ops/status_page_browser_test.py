#!/usr/bin/env python3
"""The router's /status page in a real browser.

Starts `bloomroute local` with two region servers, creates an indexed table
with a few rows and runs lookups through `bloomroute shell`, then loads the
router's /status page in headless Chromium: the DOM it built must list both
region servers and the table with its index, and a phone-sized screenshot
is saved (status-page.png in the given output directory) for a person to
look at. Without Chromium the browser part is skipped, and the script says
so (install-deps installs it).

Usage: status_page_browser_test.py --binary BLOOMROUTE --out DIR
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def browser(path, *args):
    # As root Chromium needs --no-sandbox; the page is our own, on loopback.
    return subprocess.run(
        [path, "--headless", "--no-sandbox", "--disable-gpu",
         "--disable-dev-shm-usage", "--hide-scrollbars", *args],
        capture_output=True, text=True, timeout=120)


def read_lines(process, count):
    lines = []
    while len(lines) < count:
        line = process.stdout.readline()
        if not line:
            raise SystemExit("bloomroute local ended early: " + "".join(lines))
        lines.append(line)
    return lines


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    path = chromium()
    if path is None:
        print("SKIPPED: Chromium is not installed (scripts/install-deps.sh "
              "installs it); the /status page was not loaded in a browser")
        return 0
    with tempfile.TemporaryDirectory() as data:
        local = subprocess.Popen(
            [args.binary, "local", "--data", data, "--servers", "2",
             "--port", "0"], stdout=subprocess.PIPE, text=True)
        try:
            # The router line, then the router's status URL and each region
            # server's.
            lines = read_lines(local, 4)
            router = re.search(r"router on (\S+),", lines[0]).group(1)
            status = re.search(r"router status on (\S+)", lines[1]).group(1)
            servers = [re.search(r"\(([^)]+)\)", l).group(1)
                       for l in lines[2:4]]
            script = ("create 'places', 'd', {INDEX => ['d:cc'], "
                      "SPLITS => ['m']}\n"
                      "put 'places', 'bergen', 'd:cc', 'NO'\n"
                      "put 'places', 'oslo', 'd:cc', 'NO'\n"
                      "put 'places', 'paris', 'd:cc', 'FR'\n"
                      "lookup 'places', 'd:cc' => 'NO'\n"
                      "lookup 'places', 'd:cc' => 'SE'\n")
            shell = subprocess.run(
                [args.binary, "shell", "-n", "--router", router],
                input=script, capture_output=True, text=True, timeout=60)
            if shell.returncode != 0:
                print(shell.stdout, shell.stderr)
                return 1
            dom = browser(path, "--dump-dom", status).stdout
            failures = []
            for server in servers:
                if "<td>" + server + "</td>" not in dom:
                    failures.append("server " + server + " not in the DOM")
            if not re.search(r'<table id="servers">.*?<td>up</td>', dom, re.S):
                failures.append("no server shown up")
            if "<td>places</td>" not in dom:
                failures.append("table places not in the DOM")
            if "d:cc (ready)" not in dom:
                failures.append("index d:cc not shown ready")
            if not re.search(r"Lookups</dt>\s*<dd>2</dd>", dom):
                failures.append("routing counters do not show 2 lookups")
            os.makedirs(args.out, exist_ok=True)
            shot = os.path.join(args.out, "status-page.png")
            if os.path.exists(shot):
                os.remove(shot)
            browser(path, "--screenshot=" + shot, "--window-size=412,1600",
                    status)
            if not os.path.exists(shot) or os.path.getsize(shot) < 1000:
                failures.append("no screenshot at " + shot)
            if failures:
                print("FAILED:\n  " + "\n  ".join(failures))
                print(dom[:4000])
                return 1
            print("OK: /status lists %d servers and the table; screenshot %s"
                  % (len(servers), shot))
            return 0
        finally:
            local.send_signal(signal.SIGTERM)
            local.wait(timeout=60)


if __name__ == "__main__":
    sys.exit(main())
