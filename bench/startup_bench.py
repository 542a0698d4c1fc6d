#!/usr/bin/env python3
"""Start-up benchmark (issue 23): what every flowrun process pays before its work. Rows:

  version   flowrun --version
  help      flowrun run --help (ArgumentParser's help text: every option of `run`)
  one-task  flowrun run --events plain of a workflow of one `true` task (its record written)
  validate  flowrun validate of the same file

Each binary given (--flowrun NAME=PATH, repeatable, e.g. the dynamic and the static build)
runs each row --rounds times, the binaries taking turns within a round. Each run is forked
from a small `python3 -S` launcher (as measure.launch does, so that ru_maxrss is the
command's own) that reports wall time (fork to wait4), user and system CPU and peak RSS from
wait4. The table gives the median and the range of each, and the load average before each
row. With --callgrind, each row also runs once under `valgrind --tool=callgrind` per binary
and the instructions executed (Ir, every thread) are shown: the count that a busy machine does
not change. See bench/README.md (s30-startup).

Usage: startup_bench.py --flowrun NAME=PATH [--flowrun NAME=PATH ...] [--rounds 30] [--rows version,help,one-task,validate] [--callgrind]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

LAUNCHER = r"""
import os, sys, time
cmd = sys.argv[1:]
t0 = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0); os.dup2(null, 1); os.dup2(null, 2)
        os.execv(cmd[0], cmd)
    finally:
        os._exit(127)
_, status, ru = os.wait4(pid, 0)
wall = time.perf_counter() - t0
print(wall, ru.ru_utime, ru.ru_stime, ru.ru_maxrss, os.waitstatus_to_exitcode(status))
"""

WORKFLOW = "version: 1\nname: one-task\ntasks:\n  only: {shell: \"true\"}\n"


def load():
    return "load %.1f %.1f %.1f" % os.getloadavg()


def rows(binary, folder):
    workflow = str(folder / "flowrun.yaml")
    return {
        "version": [binary, "--version"],
        "help": [binary, "run", "--help"],
        "one-task": [binary, "run", "--events", "plain", workflow],
        "validate": [binary, "validate", workflow],
    }


def launch(cmd, cwd):
    out = subprocess.run([sys.executable, "-S", "-c", LAUNCHER, *cmd], stdout=subprocess.PIPE, text=True, check=True, cwd=cwd).stdout.split()
    wall, user, system, rss_kib, code = float(out[0]), float(out[1]), float(out[2]), int(out[3]), int(out[4])
    if code != 0:
        sys.exit(f"{' '.join(cmd)}: exit {code}")
    return wall, user + system, rss_kib * 1024 / 1e6


def instructions(cmd, cwd):
    """Ir of one run under callgrind (every thread), from its summary line."""
    with tempfile.TemporaryDirectory() as scratch:
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={scratch}/out", *cmd],
            cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    return int(found.group(1)) if found else None


def spread(values, scale):
    values = [v * scale for v in values]
    return f"{statistics.median(values):.1f} ({min(values):.1f}-{max(values):.1f})"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--flowrun", action="append", required=True, help="NAME=PATH of a flowrun binary (repeatable)")
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--rows", default="version,help,one-task,validate")
    ap.add_argument("--callgrind", action="store_true", help="also count instructions under callgrind")
    args = ap.parse_args()
    binaries = []
    for given in args.flowrun:
        name, _, path = given.partition("=")
        if not path:
            name, path = Path(given).name, given
        binaries.append((name, str(Path(path).resolve())))
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        (folder / "flowrun.yaml").write_text(WORKFLOW)
        print("| row | binary | wall ms | user+sys ms | peak RSS MB |" + (" instructions |" if args.callgrind else ""))
        print("|---|---|---:|---:|---:|" + ("---:|" if args.callgrind else ""))
        for row in args.rows.split(","):
            print(f"<!-- {row}: {load()} -->", flush=True)
            samples = {name: [] for name, _ in binaries}
            for _ in range(args.rounds):
                for name, path in binaries:
                    samples[name].append(launch(rows(path, folder)[row], folder))
            for name, path in binaries:
                walls, cpus, rsss = zip(*samples[name])
                line = f"| {row} | {name} | {spread(walls, 1000)} | {spread(cpus, 1000)} | {spread(rsss, 1)} |"
                if args.callgrind:
                    count = instructions(rows(path, folder)[row], folder)
                    line += f" {count / 1e6:.1f} M |" if count else " ? |"
                print(line, flush=True)
        print(f"<!-- end: {load()} -->")


if __name__ == "__main__":
    main()
