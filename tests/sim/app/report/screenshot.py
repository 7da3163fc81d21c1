#!/usr/bin/env python3
"""A PNG of a dlsim report page as headless Chromium draws it (the README's picture).

usage: screenshot.py REPORT.html OUT.png [--job ID] [--width 1400] [--height 1000]
--job selects a job first, so its timeline shows beside the Gantt.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("out")
    ap.add_argument("--job")
    ap.add_argument("--width", type=int, default=1400)
    ap.add_argument("--height", type=int, default=1000)
    args = ap.parse_args()
    chromium = cdp.find_chromium()
    if chromium is None:
        sys.exit("screenshot.py: no chromium on PATH")
    with cdp.Browser(chromium, args.width, args.height) as b:
        b.open_page()
        b.navigate("file://" + os.path.abspath(args.page))
        b.wait_for("window.dlsimComplete || window.dlsimError", timeout=120)
        if args.job is not None:
            b.evaluate(f"selectJob(ids().indexOf({json.dumps(args.job)}))")
        b.evaluate("document.getElementById('schedule').scrollIntoView()")
        b.wait_for("new Promise(r => requestAnimationFrame(() => r(true)))")
        with open(args.out, "wb") as f:
            f.write(b.screenshot())


if __name__ == "__main__":
    main()
