#!/usr/bin/env python3
"""Many-files extraction benchmark: a tar.gz of FILES empty files (200,000 by default) in 500
folders, and a small, very compressible tar.gz (one 40 MB file of one byte repeated), each
extracted by flowrun's `decompress` and by bsdtar, in turns. Prints wall time, files/s, peak
RSS (ru_maxrss, from measure.py's launcher) and flowrun's time as a ratio of bsdtar's, and
checks that every file arrived (its count, and the big file's size).

This was the unit test DecompressExtractorTests.manyFilesAndASmallVeryCompressibleFileExtract
(37-77 s in a debug build); the suite keeps a small version of it that asserts the behaviour.
The archives are made once and kept in bench/out/many-files/.
"""
import argparse
import io
import os
import shutil
import statistics
import sys
import tarfile
from pathlib import Path

from measure import build_flowrun, launch, log

BENCH = Path(__file__).resolve().parent
OUT = BENCH / "out" / "many-files"
TIMEOUT_S = 900.0
FOLDERS = 500
BIG = 40 << 20


def make_archives(files):
    """(label, archive path, files expected, bytes of the largest file) for each archive."""
    OUT.mkdir(parents=True, exist_ok=True)
    many = OUT / f"many-{files}.tar.gz"
    if not many.exists():
        log(f"making {many}")
        with tarfile.open(many, "w:gz") as t:
            for i in range(files):
                t.addfile(tarfile.TarInfo("d%03d/f%d" % (i % FOLDERS, i)), io.BytesIO(b""))
    log_archive = OUT / "log.tar.gz"
    if not log_archive.exists():
        log(f"making {log_archive}")
        with tarfile.open(log_archive, "w:gz") as t:
            info = tarfile.TarInfo("log")
            info.size = BIG
            t.addfile(info, io.BytesIO(b"a" * BIG))
    return [("many empty files", many, files, 0), ("one compressible file", log_archive, 1, BIG)]


def extracted(into):
    """(files, largest size) under `into`."""
    count, largest = 0, 0
    for folder, _, names in os.walk(into):
        for name in names:
            count += 1
            largest = max(largest, os.lstat(os.path.join(folder, name)).st_size)
    return count, largest


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=200_000, help="empty files in the first archive (default 200000)")
    ap.add_argument("--rounds", type=int, default=3, help="turns of every command (default 3): median wall, max RSS")
    ap.add_argument("--flowrun", help="flowrun binary (default: swift build -c release --product flowrun)")
    args = ap.parse_args()
    if not shutil.which("bsdtar"):
        sys.exit("bsdtar is missing: apt-get install libarchive-tools")

    flowrun = Path(args.flowrun).resolve() if args.flowrun else build_flowrun()
    archives = make_archives(args.files)
    into = OUT / "into"
    results, wrong = {}, []
    load_before = os.getloadavg()[0]
    for round_index in range(args.rounds):
        for label, archive, files, largest in archives:
            workflow = OUT / "extract.yaml"
            workflow.write_text(f"version: 1\ntasks:\n  unpack: {{decompress: {{from: '{archive}', to: '{into}'}}}}\n")
            rows = [("flowrun decompress", [flowrun, "run", "--events", "plain", workflow]),
                    ("bsdtar -xf", ["bsdtar", "-xf", archive, "-C", into])]
            shift = round_index % len(rows)
            for command, argv in rows[shift:] + rows[:shift]:
                shutil.rmtree(into, ignore_errors=True)
                if not command.startswith("flowrun"):
                    into.mkdir()
                log(f"  round {round_index + 1}: {label}: {command}")
                r = launch(argv, TIMEOUT_S, cwd=OUT)
                found = extracted(into)
                if r.code != 0 or r.timed_out or found != (files, largest):
                    wrong.append(f"{label}, {command}: exit {r.code}, timed out {r.timed_out}, found {found}, expected {(files, largest)}")
                results.setdefault((label, command), []).append(r)
    shutil.rmtree(into, ignore_errors=True)

    print(f"\nload average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after; {args.rounds} rounds; flowrun {flowrun}\n")
    print("| archive | files | command | wall s | files/s | peak RSS MB | x bsdtar |")
    print("|---|---|---|---|---|---|---|")
    for label, _, files, _ in archives:
        base = statistics.median(r.wall for r in results[(label, "bsdtar -xf")])
        for command in ("flowrun decompress", "bsdtar -xf"):
            runs = results[(label, command)]
            wall = statistics.median(r.wall for r in runs)
            print(f"| {label} | {files} | {command} | {wall:.2f} | {files / wall:.0f} | {max(r.rss for r in runs):.1f} | {wall / base:.2f} |")
    for line in wrong:
        print("WRONG: " + line)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
