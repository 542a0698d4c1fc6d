#!/usr/bin/env python3
"""Run-record benchmark: the cost of recording a run (issue 15's target: recording adds under 5%
to the run benchmark). Runs the run benchmark's 5,000-task DAG of shell tasks (`true`) at -j2
with flowrun as it runs by default (writing its record in a state folder) and with
--no-record, taking turns, and prints both median walls side by side with their ratio.

The state folder is bench/out/record-state ($FLOWRUN_STATE_DIR), kept across turns, so that
the recorded runs also pay for pruning old records past the default count of 50.
"""
import argparse
import os
import shutil
import statistics
import sys
from pathlib import Path

from gen_workflows import generate
from measure import build_flowrun, launch, log

BENCH = Path(__file__).resolve().parent
OUT = BENCH / "out"
STATE = OUT / "record-state"
JOBS = 2
TARGET_RATIO = 1.05
TIMEOUT_S = 600.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=5000, help="tasks in the DAG (default 5000)")
    ap.add_argument("--repeat", type=int, default=5, help="runs of each, taking turns (default 5)")
    ap.add_argument("--flowrun", help="flowrun binary (default: swift build -c release into .build-release)")
    a = ap.parse_args()
    flowrun = str(Path(a.flowrun).resolve()) if a.flowrun else str(build_flowrun(".build-release"))
    flow, _ = generate("dag", a.size)
    shutil.rmtree(STATE, ignore_errors=True)
    env = dict(os.environ, FLOWRUN_STATE_DIR=str(STATE))
    env.pop("NO_COLOR", None)
    walls = {"recorded": [], "--no-record": []}
    rss = {"recorded": [], "--no-record": []}
    load_before = os.getloadavg()
    for rep in range(a.repeat):
        for label, extra in (("recorded", []), ("--no-record", ["--no-record"])):
            log(f"run {rep + 1}/{a.repeat}: {label}")
            argv = [flowrun, "run", "-j", str(JOBS), "--events", "plain", *extra, str(flow)]
            r = launch(argv, TIMEOUT_S, stdout=str(OUT / "record-bench.out"), stderr=str(OUT / "record-bench.err"), env=env)
            if r.timed_out or r.code != 0:
                sys.exit(f"{label}: {'timed out' if r.timed_out else f'exit {r.code}'}; see {OUT / 'record-bench.err'}")
            walls[label].append(r.wall)
            rss[label].append(r.rss)
    recorded, plain = statistics.median(walls["recorded"]), statistics.median(walls["--no-record"])
    records = sorted(STATE.glob("runs/*/*.jsonl"))
    size = records[-1].stat().st_size if records else 0
    print(f"record benchmark: dag {a.size} shell tasks, -j{JOBS}, repeat {a.repeat} (median wall, max peak RSS), "
          f"{os.cpu_count()} CPUs, load average {load_before[0]:.2f} before, {os.getloadavg()[0]:.2f} after")
    print(f"  flowrun: {flowrun}")
    print(f"  {'recorded':<14} {recorded:7.3f} s  {max(rss['recorded']):6.1f} MB   (record of {size / 1e6:.1f} MB, "
          f"{len(records)} kept)")
    print(f"  {'--no-record':<14} {plain:7.3f} s  {max(rss['--no-record']):6.1f} MB")
    print(f"  walls recorded:    {' '.join(f'{w:.3f}' for w in walls['recorded'])}")
    print(f"  walls --no-record: {' '.join(f'{w:.3f}' for w in walls['--no-record'])}")
    # Each recorded run beside the unrecorded run that followed it: the load of a shared machine
    # drifts between turns, less within a pair.
    paired = statistics.median(r / p for r, p in zip(walls["recorded"], walls["--no-record"]))
    print(f"  median of paired ratios (recorded / --no-record, run by run): {paired:.3f}x")
    ratio = recorded / plain
    verdict = "met" if ratio < TARGET_RATIO else "NOT met"
    print(f"target: recording adds under {TARGET_RATIO - 1:.0%}: {ratio:.3f}x ({(ratio - 1) * 100:+.1f}%): {verdict}")


if __name__ == "__main__":
    main()
