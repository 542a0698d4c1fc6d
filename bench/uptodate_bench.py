#!/usr/bin/env python3
"""Up-to-date benchmark (issue 15): a random DAG (gen_workflows.graph("dag", N)) where task i
copies in/i.txt to out/i.txt, built three ways by each tool, in one folder per tool:

  full      from nothing (no out/, no state)
  first no-op  right after the full run, nothing changed: what a user sees first (the tools
            taking turns, each right after its own full run)
  no-op     again with nothing changed: every task is up to date (the steady no-op)
  one-file  again after one input changed (task N/2's): only it and its dependents run

flowrun (`inputs`/`outputs`, at N), ninja (`build out/i: cp in/i | out/needs...`, at N) and
go-task (`sources`/`generates`, the needs' outputs among the sources, `run: once`, at
--task-size, 2,000 by default: it is too slow at 20,000). Each measurement runs --repeat
times (the tools taking turns); the table shows the median wall time and the largest peak RSS
(measure.launch). The one-file rows also count the tasks that ran, against the expected
number (the changed task and everything that depends on it). The no-op runs --noop-repeat
times a round, the tools taking turns, each no-op line printed as it is measured with the
load average (the machine is often shared: read the ratios taken side by side). Then the
targets are checked (issue 23): flowrun's no-op at most 1.2x ninja's and under 64 MB, for the
first no-op after the full run and for the steady one. --baseline PATH adds another flowrun
binary (main's, to compare a change with) as the tool `flowrun-base`, in a folder of its own
(the compiled plan is keyed by the binary: one folder for two binaries would plan every run),
taking turns with the others. See bench/README.md.

Usage: uptodate_bench.py [--size 20000] [--task-size 2000] [--repeat 3] [--noop-repeat 1] [--flowrun PATH]
                         [--baseline PATH] [--tools flowrun,ninja,task]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from gen_workflows import graph, ids, sinks
from measure import build_flowrun, find_task, launch, log
from run_bench import bench_env, find_ninja, version

BENCH = Path(__file__).resolve().parent
OUT = BENCH / "out" / "uptodate"
TIMEOUT_S = 900.0
TARGET_RATIO, TARGET_RSS_MB = 1.2, 64.0


def load():
    return "load %.1f %.1f %.1f" % os.getloadavg()


def flowrun_yaml(needs):
    lines = ["version: 1", f"name: uptodate-{len(needs)}", "tasks:"]
    for i, deps in enumerate(needs):
        pre = f"needs: {ids(deps)}, " if deps else ""
        lines.append(f"  t{i}: {{{pre}inputs: [in/{i}.txt], outputs: [out/{i}.txt], shell: [cp, in/{i}.txt, out/{i}.txt]}}")
    return "\n".join(lines) + "\n"


def ninja_text(needs):
    lines = ["rule cp", "  command = cp $in $out"]
    for i, deps in enumerate(needs):
        implicit = (" |" + "".join(f" out/{j}.txt" for j in deps)) if deps else ""
        lines.append(f"build out/{i}.txt: cp in/{i}.txt{implicit}")
    return "\n".join(lines) + "\n"


def taskfile_yaml(needs):
    lines = ["version: '3'", "run: once", "tasks:"]
    for i, deps in enumerate(needs):
        pre = f"deps: {ids(deps)}, " if deps else ""
        sources = ", ".join([f"in/{i}.txt"] + [f"out/{j}.txt" for j in deps])
        lines.append(f"  t{i}: {{{pre}sources: [{sources}], generates: [out/{i}.txt], cmds: [cp in/{i}.txt out/{i}.txt]}}")
    lines.append(f"  default: {{deps: {ids(sinks(needs))}}}")
    return "\n".join(lines) + "\n"


def dependents_closure(needs, start):
    """start and every task that depends on it, directly or not."""
    users = [[] for _ in needs]
    for i, deps in enumerate(needs):
        for j in deps:
            users[j].append(i)
    seen, stack = {start}, [start]
    while stack:
        for k in users[stack.pop()]:
            if k not in seen:
                seen.add(k)
                stack.append(k)
    return seen


def prepare(folder, n, files):
    """A fresh folder with in/0..n-1.txt and the tool's files."""
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "in").mkdir(parents=True)
    (folder / "out").mkdir()
    for i in range(n):
        (folder / "in" / f"{i}.txt").write_text(f"input {i}\n")
    for name, text in files.items():
        (folder / name).write_text(text)


def ran_count(tool, stdout):
    text = Path(stdout).read_text(errors="replace")
    if tool.startswith("flowrun"):
        return sum(1 for line in text.splitlines() if line.startswith("[t") and line.endswith("started (shell)"))
    if tool == "ninja":
        return sum(1 for line in text.splitlines() if line.startswith("["))
    # go-task prints each command it runs to stderr as `task: [tN] cp ...`
    return sum(1 for line in text.splitlines() if line.startswith("task: [t") and "] cp " in line)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=20_000)
    ap.add_argument("--task-size", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--noop-repeat", type=int, default=1, help="no-op runs per round and tool, taking turns")
    ap.add_argument("--flowrun", type=Path, help="a flowrun binary (default: build it in release mode)")
    ap.add_argument("--baseline", type=Path, help="another flowrun binary, measured in turns as flowrun-base")
    ap.add_argument("--tools", default="flowrun,ninja,task")
    a = ap.parse_args()
    tools = a.tools.split(",")
    env = bench_env()
    env.pop("FLOWRUN_STATE_DIR", None)
    flowrun = a.flowrun.resolve() if a.flowrun else build_flowrun(".build-release")
    commands = {}
    if "flowrun" in tools:
        commands["flowrun"] = (a.size, [str(flowrun), "run", "--events", "plain", "-j2", "flow.yaml"],
                               {"flow.yaml": flowrun_yaml}, ".flowrun")
    if a.baseline:
        commands["flowrun-base"] = (a.size, [str(a.baseline.resolve()), "run", "--events", "plain", "-j2", "flow.yaml"],
                                    {"flow.yaml": flowrun_yaml}, ".flowrun")
    if "ninja" in tools:
        commands["ninja"] = (a.size, [find_ninja(), "-j2"], {"build.ninja": ninja_text}, ".ninja_log")
    if "task" in tools:
        commands["task"] = (a.task_size, [find_task(), "--concurrency", "2", "default"],
                            {"Taskfile.yml": taskfile_yaml}, ".task")
    for tool in commands:
        log(f"{tool}: {version([commands[tool][1][0], '--version'])}")

    results = {}  # (tool, phase) -> list of (wall, rss, ran)
    expected = {}
    log(f"start: {load()}")

    def measure(rep, tool, phase):
        n, cmd, _files, _state = commands[tool]
        folder = OUT / tool
        if phase == "one-file":
            changed = n // 2
            (folder / "in" / f"{changed}.txt").write_text(f"input {changed}, changed in round {rep}\n")
        name = phase.replace(" ", "-")
        out, err = folder / f"{name}.out", folder / f"{name}.err"
        r = launch(cmd, TIMEOUT_S, stdout=out, stderr=err if tool != "task" else out, cwd=folder, env=env)
        if r.timed_out or r.code != 0:
            sys.exit(f"{tool} {phase} failed ({'timed out' if r.timed_out else r.code}); see {out} and {err}")
        log(f"  round {rep + 1}: {tool} {phase} ({n} tasks): {r.wall:.3f} s, {r.rss:.0f} MB ({load()})")
        results.setdefault((tool, phase), []).append((r.wall, r.rss, ran_count(tool, out)))

    for rep in range(a.repeat):
        for tool, (n, cmd, files, state) in commands.items():
            needs = graph("dag", n)
            expected[tool] = len(dependents_closure(needs, n // 2))
            prepare(OUT / tool, n, {name: make(needs) for name, make in files.items()})
            measure(rep, tool, "full")
        for tool in commands:
            measure(rep, tool, "first no-op")
        for _ in range(a.noop_repeat):
            for tool in commands:
                measure(rep, tool, "no-op")
        for tool in commands:
            measure(rep, tool, "one-file")
    log(f"end: {load()}")

    print(f"\nUp-to-date benchmark: random DAG, each task copies one input to one output, -j2, "
          f"median of {a.repeat} (no-op: {a.repeat * a.noop_repeat}, taking turns), peak RSS the largest; "
          f"{load()} at the end\n")
    print(f"| tool | tasks | phase | wall s | peak RSS MB | tasks run (expected) |")
    print(f"|---|---:|---|---:|---:|---:|")
    for tool, (n, *_rest) in commands.items():
        for phase in ("full", "first no-op", "no-op", "one-file"):
            runs = results[(tool, phase)]
            wall = statistics.median(w for w, _, _ in runs)
            rss = max(r for _, r, _ in runs)
            ran = sorted({c for _, _, c in runs})
            want = {"full": n, "first no-op": 0, "no-op": 0, "one-file": expected[tool]}[phase]
            print(f"| {tool} | {n} | {phase} | {wall:.3f} | {rss:.0f} | {'/'.join(map(str, ran))} ({want}) |")
    if "flowrun" in commands and "ninja" in commands:
        print()
        for flowrun_tool, phase in [(t, p) for t in ("flowrun-base", "flowrun") if t in commands for p in ("first no-op", "no-op")]:
            f = statistics.median(w for w, _, _ in results[(flowrun_tool, phase)])
            nj = statistics.median(w for w, _, _ in results[("ninja", phase)])
            rss = max(r for _, r, _ in results[(flowrun_tool, phase)])
            ratio = f / nj if nj > 0 else float("inf")
            name = "" if flowrun_tool == "flowrun" else f" ({flowrun_tool})"
            print(f"Target{name}: {phase} of {a.size} up-to-date tasks within {TARGET_RATIO}x ninja's and under "
                  f"{TARGET_RSS_MB:.0f} MB: {ratio:.2f}x ninja ({f:.3f} s against {nj:.3f} s), {rss:.0f} MB: "
                  f"{'met' if ratio <= TARGET_RATIO and rss < TARGET_RSS_MB else 'MISSED'}")
        flow_runs = results[("flowrun", "one-file")]
        ok = all(c == expected["flowrun"] for _, _, c in flow_runs)
        print(f"Target: one changed input reruns only that task and its dependents "
              f"({expected['flowrun']} tasks): {'met' if ok else 'MISSED'}")


if __name__ == "__main__":
    main()
