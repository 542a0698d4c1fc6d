#!/usr/bin/env python3
"""Generate benchmark graphs as flowrun workflows and as go-task Taskfiles.

Shapes (task ids t0..t{n-1}):
  chain  t_i needs t_{i-1}
  wide   n independent tasks (also accepted as `independent`, the name run_bench.py uses)
  dag    task i > 0 needs k = randint(0, 3) (at most i) distinct earlier tasks,
         drawn uniformly from t0..t_{i-1}; random.Random(42), so always the same graph

Each (shape, n) gives OUT/<shape>-<n>.flow.yaml and OUT/<shape>-<n>.Taskfile.yml
(generate); generate_peers adds OUT/<shape>-<n>.mk and OUT/<shape>-<n>.ninja, the same
graph for make and ninja, whose every task runs `true`, and OUT/<shape>-<n>.run.Taskfile.yml,
whose every task runs `/bin/true` (for run_bench.py).
The Taskfile has the same tasks plus `default`, which needs every sink (a task nothing
needs), so `task --dry default` plans the whole graph; `run: once` makes go-task plan
each task once however many tasks need it, as flowrun does.

Usage: gen_workflows.py [--sizes 1000,10000,100000] [--shapes chain,wide,dag] [--out DIR]
"""
import argparse
import random
from pathlib import Path

SHAPES = ("chain", "wide", "dag")
DEFAULT_SIZES = (1000, 10_000, 100_000)
OUT = Path(__file__).resolve().parent / "out"


def graph(shape, n):
    """Return needs[i]: the list of indices task i needs."""
    if shape == "chain":
        return [[]] + [[i - 1] for i in range(1, n)]
    if shape in ("wide", "independent"):
        return [[] for _ in range(n)]
    if shape == "dag":
        rng = random.Random(42)
        needs = [[]]
        for i in range(1, n):
            k = min(rng.randint(0, 3), i)
            needs.append(sorted(rng.sample(range(i), k)))
        return needs
    raise ValueError(f"unknown shape {shape!r} (expected one of {', '.join(SHAPES)}, or independent)")


def ids(indices):
    return "[" + ", ".join(f"t{j}" for j in indices) + "]"


def sinks(needs):
    """Indices of the tasks nothing needs."""
    needed = {j for deps in needs for j in deps}
    return [i for i in range(len(needs)) if i not in needed]


def flowrun_yaml(shape, n, needs):
    lines = ["version: 1", f"name: bench-{shape}-{n}", "tasks:"]
    for i, deps in enumerate(needs):
        pre = f"needs: {ids(deps)}, " if deps else ""
        lines.append(f'  t{i}: {{{pre}shell: ["true"]}}')
    return "\n".join(lines) + "\n"


def taskfile_yaml(needs, command="true"):
    lines = ["version: '3'", "run: once", "tasks:"]
    for i, deps in enumerate(needs):
        pre = f"deps: {ids(deps)}, " if deps else ""
        lines.append(f'  t{i}: {{{pre}cmds: ["{command}"]}}')
    lines.append(f"  default: {{deps: {ids(sinks(needs))}}}")
    return "\n".join(lines) + "\n"


def makefile_text(needs):
    """Every task a .PHONY target running `@true`; `all` needs every sink."""
    names = " ".join(f"t{i}" for i in range(len(needs)))
    lines = [f".PHONY: all {names}", f"all: {' '.join(f't{i}' for i in sinks(needs))}"]
    for i, deps in enumerate(needs):
        lines.append(f"t{i}:" + "".join(f" t{j}" for j in deps))
        lines.append("\t@true")
    return "\n".join(lines) + "\n"


def ninja_text(needs):
    """One edge per task running `true`, its output never created (so every edge runs on
    every build), with the outputs of its needs as implicit inputs. No `default`: ninja
    builds every output nothing uses, so the whole graph."""
    lines = ["rule t", "  command = true"]
    for i, deps in enumerate(needs):
        lines.append(f"build t{i}: t" + (" |" + "".join(f" t{j}" for j in deps) if deps else ""))
    return "\n".join(lines) + "\n"


def generate_peers(shape, n, out=OUT):
    """Write the Makefile, the ninja file and the run Taskfile for (shape, n); return
    (makefile, ninja_file, run_taskfile). The run Taskfile's tasks run `/bin/true`, not `true`:
    go-task runs commands in its own shell interpreter, where `true` is a builtin, so it would
    start no process at all."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    needs = graph(shape, n)
    mk, nj, tf = out / f"{shape}-{n}.mk", out / f"{shape}-{n}.ninja", out / f"{shape}-{n}.run.Taskfile.yml"
    mk.write_text(makefile_text(needs))
    nj.write_text(ninja_text(needs))
    tf.write_text(taskfile_yaml(needs, "/bin/true"))
    return mk, nj, tf


def generate(shape, n, out=OUT):
    """Write both files for (shape, n); return (flowrun_path, taskfile_path)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    needs = graph(shape, n)
    flow = out / f"{shape}-{n}.flow.yaml"
    tf = out / f"{shape}-{n}.Taskfile.yml"
    flow.write_text(flowrun_yaml(shape, n, needs))
    tf.write_text(taskfile_yaml(needs))
    return flow, tf


def csv_list(conv):
    return lambda s: [conv(x) for x in s.split(",") if x]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=csv_list(int), default=list(DEFAULT_SIZES))
    ap.add_argument("--shapes", type=csv_list(str), default=list(SHAPES))
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args()
    for shape in a.shapes:
        for n in a.sizes:
            for p in generate(shape, n, a.out):
                print(p)


if __name__ == "__main__":
    main()
