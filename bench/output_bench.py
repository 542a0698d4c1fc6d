#!/usr/bin/env python3
"""Output benchmark: one task prints SIZE bytes (1 GB by default) of 100-byte lines, and flowrun
runs it in each output mode with everything going to /dev/null, next to `sh -c CMD` (the floor:
the task alone) and make running the same recipe. Prints wall time, MB/s of task output and
peak RSS (ru_maxrss from os.wait4, taken by measure.py's small launcher) side by side, then
the targets: peak RSS under 64 MB and at least 100 MB/s in every mode. See bench/README.md.
"""
import argparse
import os
import statistics
import sys
from pathlib import Path

from measure import REPO, build_flowrun, launch, log

BENCH = Path(__file__).resolve().parent
OUT = BENCH / "out" / "output"
LINE = "some line of text that a chatty build tool might print, padded to a hundred bytes: 0123456789abcdef"
TARGET_RSS_MB, TARGET_MBPS = 64.0, 100.0
TIMEOUT_S = 600.0
MODES = ("plain", "jsonl", "events-file", "github")


def task_command(size):
    assert len(LINE) == 99
    return f"yes '{LINE}' | head -c {size}"


def commands(flowrun, workflow, makefile, cmd):
    """(label, argv, extra environment, is flowrun) for every command measured."""
    run = [str(flowrun), "run", "-j", "1"]
    return [
        ("floor: sh -c CMD", ["sh", "-c", cmd], {}, False),
        ("make -f FILE", ["make", "-s", "-f", str(makefile)], {}, False),
        ("flowrun --events plain", run + ["--events", "plain", str(workflow)], {}, True),
        ("flowrun --events jsonl", run + ["--events", "jsonl", str(workflow)], {}, True),
        ("flowrun plain --events-file /dev/null", run + ["--events", "plain", "--events-file", os.devnull, str(workflow)], {}, True),
        ("flowrun plain, GITHUB_ACTIONS=true", run + ["--events", "plain", str(workflow)], {"GITHUB_ACTIONS": "true"}, True),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=1_000_000_000, help="bytes the task prints (default 1e9)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per command, median wall, max RSS (default 1)")
    ap.add_argument("--flowrun", help="flowrun binary (default: swift build -c release --product flowrun)")
    args = ap.parse_args()

    flowrun = Path(args.flowrun).resolve() if args.flowrun else build_flowrun()
    OUT.mkdir(parents=True, exist_ok=True)
    cmd = task_command(args.size)
    workflow = OUT / "print.flow.yaml"
    # YAML: a double-quoted scalar holding the shell text (which has single quotes).
    workflow.write_text("version: 1\nname: print\ntasks:\n  print:\n    shell: \"" + cmd + "\"\n")
    makefile = OUT / "print.mk"
    makefile.write_text("all:\n\t" + cmd + "\n")

    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "GITHUB_ACTIONS", "CI")}
    load_before = os.getloadavg()[0]
    rows = []
    for label, argv, extra, is_flowrun in commands(flowrun, workflow, makefile, cmd):
        walls, rss, codes = [], [], []
        for _ in range(args.repeat):
            log(f"  {label}")
            err = OUT / "stderr.txt"
            err.write_bytes(b"")
            r = launch(argv, TIMEOUT_S, stdout=os.devnull, stderr=err, cwd=OUT, env={**env, **extra})
            walls.append(r.wall)
            rss.append(r.rss)
            codes.append(-1 if r.timed_out else r.code)
            if r.code != 0 or r.timed_out:
                log(f"    FAILED (exit {r.code}, timed out {r.timed_out}): {err.read_text()[:500]}")
        wall = statistics.median(walls)
        rows.append((label, wall, args.size / 1e6 / wall, max(rss), max(codes, key=abs), is_flowrun))

    print(f"\n{args.size / 1e6:,.0f} MB of task output (100-byte lines) to /dev/null; flowrun {flowrun}")
    print(f"load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after; repeat {args.repeat}\n")
    print("| command | wall s | MB/s | peak RSS MB | exit |")
    print("|---|---|---|---|---|")
    for label, wall, mbps, peak, code, _ in rows:
        print(f"| {label} | {wall:.2f} | {mbps:.0f} | {peak:.1f} | {code} |")
    print()
    ok = True
    for label, wall, mbps, peak, code, is_flowrun in rows:
        if not is_flowrun:
            continue
        good = peak < TARGET_RSS_MB and mbps >= TARGET_MBPS and code == 0
        ok = ok and good
        print(f"{'PASS' if good else 'MISS'}: {label}: {peak:.1f} MB peak RSS (target < {TARGET_RSS_MB:.0f}), "
              f"{mbps:.0f} MB/s (target >= {TARGET_MBPS:.0f}), exit {code}")
    return 0 if all(r[4] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
