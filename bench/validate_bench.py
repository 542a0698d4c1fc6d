#!/usr/bin/env python3
"""Time `flowrun validate` and `flowrun run --dry-run` on generated graphs, next to go-task's
`task --dry` on the same graphs, and check the targets of the loading/planning benchmark.

Each command runs --repeat times, once per round (the commands take turns); the table shows the
median wall time and the largest peak RSS (ru_maxrss of the child from os.wait4). See
bench/README.md.
"""
import argparse
import os
import sys

from gen_workflows import SHAPES, DEFAULT_SIZES, csv_list, generate
from measure import build_flowrun, find_task, log, run_once, summarize

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

    # Every command runs once per round, for --repeat rounds. So each command's runs are spread
    # over the whole benchmark, and a slow or fast spell of the machine (on the 2-core VM wall
    # time drifts by up to half over a minute) falls on every command alike; in particular the
    # 100k/10k ratio then compares runs made at the same times, not 5 runs of 0.06 s against 5
    # runs of 0.8 s made a minute apart.
    commands = []  # ((shape, n, label), argv, timeout s, keep stdout, keep stderr)
    for shape in a.shapes:
        for n in sorted(a.sizes):
            flow, taskfile = generate(shape, n)
            commands.append(((shape, n, "flowrun validate"), [flowrun, "validate", str(flow)], 3600, True, True))
            commands.append(((shape, n, "flowrun run --dry-run"), [flowrun, "run", "--dry-run", str(flow)], 3600, False, True))
            if task:
                commands.append(((shape, n, "task --dry"), [task, "--dry", "-t", str(taskfile), "default"], a.timeout, False, False))
    runs = {key: [] for key, *_ in commands}
    timed_out = set()  # a go-task run over --timeout: that size is not run again, larger ones not at all
    for round_number in range(1, a.repeat + 1):
        for key, cmd, timeout, keep_out, keep_err in commands:
            shape, n, label = key
            if any(k[0] == shape and k[2] == label and k[1] <= n for k in timed_out):
                continue
            log(f"round {round_number}/{a.repeat}: {shape} {n}: {label}")
            r = run_once(cmd, timeout, keep_out, keep_err)
            if r is None:
                timed_out.add(key)
            else:
                runs[key].append(r)
    results = {}  # (shape, n, label) -> measure() dict
    for key, *_ in commands:
        if key in timed_out:
            results[key] = {"timeout": True}
        elif not runs[key]:
            results[key] = {"skipped": True}
        else:
            results[key] = summarize(runs[key])

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
