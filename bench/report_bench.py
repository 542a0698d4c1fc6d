#!/usr/bin/env python3
"""Report benchmark (issue 21's targets): `flowrun report` of the 5,000-task run benchmark's
record under 1 s, its HTML under 5 MB, and the HTML opened and drawn in headless Chromium in
under 3 s.

Runs the run benchmark's 5,000-task DAG of shell tasks (`true`) once at -j2 with its record in
bench/out/report-state ($FLOWRUN_STATE_DIR), then times `flowrun report --html --trace` of that
record (median of --repeat), and `chromium --headless --dump-dom` of the HTML (the page's script
has drawn every bar when the DOM is dumped), and prints the sizes.
"""
import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gen_workflows import generate
from measure import build_flowrun, launch, log

BENCH = Path(__file__).resolve().parent
OUT = BENCH / "out"
STATE = OUT / "report-state"
JOBS = 2
TIMEOUT_S = 600.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=5000, help="tasks in the DAG (default 5000)")
    ap.add_argument("--repeat", type=int, default=5, help="runs of flowrun report (default 5)")
    ap.add_argument("--flowrun", help="flowrun binary (default: swift build -c release into .build-release)")
    a = ap.parse_args()
    flowrun = str(Path(a.flowrun).resolve()) if a.flowrun else str(build_flowrun(".build-release"))
    flow, _ = generate("dag", a.size)
    shutil.rmtree(STATE, ignore_errors=True)
    env = dict(os.environ, FLOWRUN_STATE_DIR=str(STATE))
    log(f"recording a run of {flow.name}")
    r = launch([flowrun, "run", "-j", str(JOBS), "--events", "plain", str(flow)], TIMEOUT_S,
               stdout=str(OUT / "report-bench.out"), stderr=str(OUT / "report-bench.err"), env=env)
    if r.timed_out or r.code != 0:
        sys.exit(f"the run: {'timed out' if r.timed_out else f'exit {r.code}'}; see {OUT / 'report-bench.err'}")
    html, trace = OUT / "report-bench.html", OUT / "report-bench.json"
    walls, cpus = [], []
    for rep in range(a.repeat):
        log(f"report {rep + 1}/{a.repeat}")
        # CPU time too: on a shared machine the wall is mostly waiting for a core.
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        r = subprocess.run([flowrun, "report", "-f", str(flow), "--html", str(html), "--trace", str(trace)], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=TIMEOUT_S)
        walls.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if r.returncode != 0:
            sys.exit(f"flowrun report: exit {r.returncode}: {r.stderr.decode(errors='replace')}")
    draw = None
    chromium = shutil.which("chromium")
    if chromium:
        profile = tempfile.mkdtemp(prefix="report-bench-")
        started = time.monotonic()
        dom = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                              f"--user-data-dir={profile}", "--dump-dom", html.as_uri()], capture_output=True, timeout=120)
        draw = time.monotonic() - started
        shutil.rmtree(profile, ignore_errors=True)
        bars = dom.stdout.count(b'class="bar ')
        drawn = re.search(rb'data-drawn-ms="(\d+)"', dom.stdout)
        page_ms = int(drawn.group(1)) if drawn else None
    record = sorted(STATE.glob("runs/*/*.jsonl"))[-1]
    print(f"report benchmark: dag {a.size} shell tasks, -j{JOBS}; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    print(f"  flowrun: {flowrun}")
    print(f"  record {record.stat().st_size / 1e6:.1f} MB; HTML {html.stat().st_size / 1e6:.2f} MB (target < 5 MB); "
          f"trace {trace.stat().st_size / 1e6:.2f} MB")
    print(f"  flowrun report --html --trace: median {statistics.median(walls):.3f} s (target < 1 s); "
          f"walls {' '.join(f'{w:.3f}' for w in walls)}; CPU (user+sys) median {statistics.median(cpus):.3f} s")
    if draw is not None:
        print(f"  chromium --headless --dump-dom (start, open, draw {bars} bars): {draw:.2f} s (target < 3 s); "
              f"the page drew its chart {page_ms} ms after navigation began")
    else:
        print("  chromium not installed: the drawing time was not measured")


main()
