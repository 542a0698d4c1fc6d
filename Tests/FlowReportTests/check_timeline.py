#!/usr/bin/env python3
"""Opens an HTML timeline in headless Chromium and checks what a person would look at.

Usage: check_timeline.py TIMELINE.html EXPECTED.json
EXPECTED: {"rows": N, "bars": N, "failed": [task ids], "critical": [task ids],
           "colours": {"name": "#rrggbb", ...}} (colours that must show in the screenshot).

1. --dump-dom after the script ran: one row label per task, `bars` attempt bars, the failed
   tasks' bars drawn as failed (class r-failed), the critical path's labels and bars marked.
2. --screenshot of the chart alone (#chart-only, no legend): the listed colours are drawn
   (pixels counted in the PNG, decoded here).
Prints "ok: ..." or the problems, and exits 1 on any; exits 3 when chromium cannot start.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from html.parser import HTMLParser


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    print("chromium is not installed (scripts/install-deps --tests installs Debian's chromium)")
    sys.exit(3)


def run_chromium(args, profile):
    command = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
               "--hide-scrollbars", f"--user-data-dir={profile}"] + args
    return subprocess.run(command, capture_output=True, timeout=120)


class Elements(HTMLParser):
    def __init__(self):
        super().__init__()
        self.elements = []  # (tag, attrs, text)
        self.open_text = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.elements.append([tag, attrs, ""])
        self.open_text = self.elements[-1] if tag == "text" else None

    def handle_data(self, data):
        if self.open_text is not None:
            self.open_text[2] += data

    def handle_endtag(self, tag):
        self.open_text = None


def png_pixels(path):
    """(width, height, rows of RGB tuples) of an 8-bit RGB or RGBA PNG."""
    with open(path, "rb") as file:
        data = file.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, idat, header = 8, b"", None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        position += 12 + length
    width, height, depth, colour = header[:4]
    assert depth == 8 and colour in (2, 6), f"PNG of depth {depth} colour type {colour}"
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up = previous[x]
            corner = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + up) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                predictor = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[x] = (line[x] + predictor) & 0xFF
        rows.append(line)
        previous = line
    return width, height, channels, rows


def main():
    page, expected_path = os.path.abspath(sys.argv[1]), sys.argv[2]
    with open(expected_path, encoding="utf-8") as file:
        expected = json.load(file)
    problems = []
    profile = tempfile.mkdtemp(prefix="flowrun-chromium-")
    try:
        started = time.monotonic()
        dump = run_chromium(["--virtual-time-budget=10000", "--dump-dom", "file://" + page], profile)
        seconds = time.monotonic() - started
        if dump.returncode != 0 or b"<svg" not in dump.stdout:
            print("chromium could not open the page:", dump.stderr.decode(errors="replace")[-2000:])
            sys.exit(3)
        parser = Elements()
        parser.feed(dump.stdout.decode("utf-8"))
        elements = parser.elements
        labels = {a.get("data-t"): (text, a.get("class", "").split()) for tag, a, text in elements if tag == "text" and "label" in a.get("class", "")}
        bars = [a for tag, a, _ in elements if tag == "rect" and "bar" in a.get("class", "").split()]
        if len(labels) != expected["rows"]:
            problems.append(f"{len(labels)} rows, expected {expected['rows']}")
        if len(bars) != expected["bars"]:
            problems.append(f"{len(bars)} bars, expected {expected['bars']}")
        failed = sorted({labels[a.get("data-t")][0] for a in bars if "r-failed" in a["class"].split() and a.get("data-t") in labels})
        if failed != sorted(expected["failed"]):
            problems.append(f"bars drawn as failed: {failed}, expected {sorted(expected['failed'])}")
        critical_labels = sorted(text for text, classes in labels.values() if "crit" in classes)
        critical_bars = sorted({labels[a.get("data-t")][0] for a in bars if "crit" in a["class"].split() and a.get("data-t") in labels})
        if critical_labels != sorted(expected["critical"]) or critical_bars != sorted(expected["critical"]):
            problems.append(f"critical path marked on rows {critical_labels} and bars {critical_bars}, expected {sorted(expected['critical'])}")
        result = [a for tag, a, _ in elements if a.get("id") == "run-result"]
        if not result or expected.get("result") not in result[0].get("class", ""):
            problems.append(f"the header does not show the run's result {expected.get('result')}")

        shot = os.path.join(profile, "shot.png")
        # The chart alone: the legend's swatches would show every colour whatever was drawn.
        run_chromium(["--window-size=1200,700", "--virtual-time-budget=10000", f"--screenshot={shot}", "file://" + page + "#chart-only"],
                     profile)
        if not os.path.exists(shot):
            problems.append("chromium wrote no screenshot")
        else:
            if "screenshot" in expected:
                shutil.copyfile(shot, expected["screenshot"])
            width, height, channels, rows = png_pixels(shot)
            counts = {}
            for name, colour in expected.get("colours", {}).items():
                rgb = tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
                counts[name] = sum(1 for line in rows for x in range(0, width * channels, channels) if tuple(line[x:x + 3]) == rgb)
                if counts[name] < 30:
                    problems.append(f"the screenshot shows {counts[name]} pixels of {name} ({colour})")
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    if problems:
        print("\n".join(problems))
        sys.exit(1)
    print(f"ok: {len(labels)} rows, {len(bars)} bars; dom in {seconds:.1f}s")


main()
