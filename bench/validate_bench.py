#!/usr/bin/env python3
"""Time `flowrun validate` and `flowrun run --dry-run` on generated graphs, next to go-task's
`task --dry` on the same graphs, and check the targets of the loading/planning benchmark.

Each command runs --repeat times; the table shows the median wall time and the largest peak
RSS (ru_maxrss of the child from os.wait4). See bench/README.md.
"""
import argparse
import os
import sys

from gen_workflows import SHAPES, DEFAULT_SIZES, csv_list, generate
from measure import build_flowrun, find_task, log, measure, run_once

TARGET_N, BASE_N = 100_000, 10_000
TARGET_WALL_S, TARGET_RSS_MB, TARGET_RATIO = 1.0, 300.0, 12.0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", type=csv_list(int), default=list(DEFAULT_SIZES))
    ap.add_argument("--shapes", type=csv_list(str), default=list(SHAPES))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-task", action="store_true", help="skip go-task")
    ap.add_argument("--flowrun", help="flowrun binary to use (default: build it in release mode)")
    ap.add_argument("--task", help="go-task binary to use (default: from PATH, pip-installed if missing)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per go-task run (default 120)")
    a = ap.parse_args()

    flowrun = a.flowrun or str(build_flowrun())
    if not os.access(flowrun, os.X_OK):
        sys.exit(f"no flowrun binary at {flowrun}")
    task = None if a.no_task else (a.task or find_task())

    results = {}  # (shape, n, label) -> measure() dict
    for shape in a.shapes:
        task_timed_out = False
        for n in sorted(a.sizes):
            flow, taskfile = generate(shape, n)
            # (label, argv, timeout s, keep stdout, keep stderr)
            cmds = [("flowrun validate", [flowrun, "validate", str(flow)], 3600, True, True),
                    ("flowrun run --dry-run", [flowrun, "run", "--dry-run", str(flow)], 3600, False, True)]
            if task:
                cmds.append(("task --dry", [task, "--dry", "-t", str(taskfile), "default"], a.timeout, False, False))
            for label, cmd, timeout, keep_out, keep_err in cmds:
                if label == "task --dry" and task_timed_out:
                    results[shape, n, label] = {"skipped": True}
                    continue
                log(f"{shape} {n}: {label}")
                r = results[shape, n, label] = measure(cmd, a.repeat, timeout, keep_out, keep_err)
                task_timed_out |= label == "task --dry" and "timeout" in r

    print(f"flowrun: {flowrun}" + (f"\ngo-task: {task}" if task else ""))
    floor = run_once(["true"], 10)[1]
    print(f"repeat: {a.repeat} (median wall, max peak RSS; 1 MB = 10^6 bytes; "
          f"RSS floor of the launcher, as `true` shows it: {floor:.1f} MB)\n")
    row = "{:<6} {:>7}  {:<22} {:>10} {:>12} {:>5}  {}"
    print(row.format("shape", "n", "command", "wall s", "peak RSS MB", "exit", ""))
    failures = []
    for (shape, n, label), r in results.items():
        if "timeout" in r or "skipped" in r:
            what = f"timeout (> {a.timeout:g} s)" if "timeout" in r else "skipped (timed out at a smaller n)"
            print(row.format(shape, n, label, "-", "-", "-", what))
            continue
        flag = f"<<< FAILED: exit {r['code']} >>>" if r["code"] else ""
        print(row.format(shape, n, label, f"{r['wall']:.3f}", f"{r['rss']:.1f}", r["code"], flag))
        if r["code"]:
            failures.append((shape, n, label, r))
    for shape, n, label, r in failures:
        print(f"\n{label} on {shape}-{n} exited {r['code']}; its output begins:")
        for line in r["output"] or ["(no output kept)"]:
            print("    " + line)

    print("\ntargets")
    for label in ("flowrun validate", "flowrun run --dry-run"):
        r = results.get(("dag", TARGET_N, label))
        if r is None:
            print(f"  {label} dag-{TARGET_N}: n/a (needs --shapes dag and --sizes {TARGET_N})")
            continue
        ok = r["code"] == 0
        wall = "PASS" if ok and r["wall"] < TARGET_WALL_S else "MISS"
        rss = "PASS" if ok and r["rss"] < TARGET_RSS_MB else "MISS"
        note = "" if ok else f" (exit {r['code']})"
        print(f"  {label} dag-{TARGET_N}: wall {r['wall']:.3f} s (target < {TARGET_WALL_S:g} s) {wall}; "
              f"peak RSS {r['rss']:.1f} MB (target < {TARGET_RSS_MB:g} MB) {rss}{note}")
    for shape in a.shapes:
        for label in ("flowrun validate", "flowrun run --dry-run"):
            big, base = results.get((shape, TARGET_N, label)), results.get((shape, BASE_N, label))
            if big is None or base is None:
                print(f"  {label} {shape} time({TARGET_N})/time({BASE_N}): n/a (needs both sizes)")
                continue
            ratio = big["wall"] / base["wall"]
            ok = "PASS" if big["code"] == base["code"] == 0 and ratio <= TARGET_RATIO else "MISS"
            print(f"  {label} {shape} time({TARGET_N})/time({BASE_N}): "
                  f"{big['wall']:.3f}/{base['wall']:.3f} = {ratio:.1f}x (target <= {TARGET_RATIO:g}x) {ok}")


if __name__ == "__main__":
    main()
