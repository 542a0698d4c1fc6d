#!/usr/bin/env python3
"""Every row of issue 23's table in one run: flowrun and its peer taking turns, row by row, with
the load average before each row. Each row is measured by its own benchmark script (their
tables are printed in full, unchanged), so a number here is the same number that script gives:

  no-op rerun, 20,000 up-to-date tasks     uptodate_bench.py   (ninja)
  5,000 `true` tasks, random DAG, -j2      run_bench.py        (make, ninja, posix_spawn floor)
  download 1 GiB / 200 x 1 MiB             download_bench.py   (curl; needs nginx)
  extract tar.gz / zip / tar.xz            extract_bench.py    (bsdtar, GNU tar)

Usage: issue23_table.py [--flowrun PATH] [--rows noop,run,download,extract] [--quick]
Without --flowrun it builds the release binary once and hands it to every script. --quick runs
each row with fewer repeats and smaller files (the extraction tree at 300 MB, the big download
at 256 MiB): for a look, not for the history in bench/README.md. Python 3.11 standard library.
"""

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent


def rows(quick: bool) -> dict[str, list[str]]:
    return {
        "noop": ["uptodate_bench.py", "--tools", "flowrun,ninja", "--repeat", "1" if quick else "3",
                 "--noop-repeat", "3" if quick else "5"],
        "run": ["run_bench.py", "--shapes", "dag", "--sizes", "5000", "--tools", "flowrun,make,ninja,floor",
                "--repeat", "3" if quick else "5"],
        "download": ["download_bench.py", "--repeat", "1" if quick else "3"] + (["--big-mib", "256"] if quick else []),
        "extract": ["extract_bench.py", "--rounds", "1" if quick else "3"] + (["--size", "300000000"] if quick else []),
    }


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--flowrun", help="flowrun binary (default: swift build -c release --product flowrun)")
    ap.add_argument("--rows", default="noop,run,download,extract", help="which rows, in order")
    ap.add_argument("--quick", action="store_true", help="fewer repeats, smaller files")
    args = ap.parse_args()
    flowrun = args.flowrun
    if not flowrun:
        subprocess.run(["swift", "build", "-c", "release", "--product", "flowrun"], cwd=ROOT, check=True)
        flowrun = str(ROOT / ".build" / "release" / "flowrun")
    commands = rows(args.quick)
    wanted = [row.strip() for row in args.rows.split(",") if row.strip()]
    unknown = [row for row in wanted if row not in commands]
    if unknown:
        ap.error(f"unknown row {', '.join(unknown)}; rows: {', '.join(commands)}")
    failed = []
    for row in wanted:
        script, *options = commands[row]
        command = [sys.executable, str(BENCH / script), "--flowrun", flowrun, *options]
        print(f"\n## {row}: {' '.join(command[1:])}\n{load()}", flush=True)
        started = time.monotonic()
        status = subprocess.run(command, cwd=ROOT).returncode
        print(f"({row}: {time.monotonic() - started:.0f} s, exit {status}; {load()})", flush=True)
        if status != 0:
            failed.append(row)
    if failed:
        print(f"\nrows that did not finish: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
