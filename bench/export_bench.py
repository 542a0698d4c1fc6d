#!/usr/bin/env python3
"""Times `flowrun export` of the 20,000-task benchmark graphs to GitHub Actions and to Argo.

Usage: export_bench.py [--flowrun PATH] [--sizes 20000] [--shapes chain,wide,dag] [--repeat 3]

Writes the graphs with gen_workflows.py (bench/out/), then runs, for each, `flowrun export FILE
--to github -o OUT` and `--to argo --image IMAGE -o OUT`, and prints the best wall time of
--repeat runs, the number of jobs or DAG tasks written, and whether it is under the 1 s
target. Without --flowrun it builds the release binary first. Python 3.11 standard library only.
"""
import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import gen_workflows

ROOT = Path(__file__).resolve().parent.parent


def best_time(command, repeat):
    best = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = subprocess.run(command, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        if result.returncode != 0:
            sys.exit(f"{' '.join(command)} failed ({result.returncode}):\n{result.stderr}")
        best = elapsed if best is None else min(best, elapsed)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flowrun")
    parser.add_argument("--sizes", default="20000")
    parser.add_argument("--shapes", default="chain,wide,dag")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    flowrun = args.flowrun
    if not flowrun:
        subprocess.run(["swift", "build", "-c", "release", "--product", "flowrun"], cwd=ROOT, check=True)
        flowrun = str(ROOT / ".build/release/flowrun")
    gen_workflows.OUT.mkdir(exist_ok=True)
    print(f"{'graph':<14} {'engine':<7} {'best s':>7} {'written':>9}  target < 1 s")
    with tempfile.TemporaryDirectory() as scratch:
        for shape in args.shapes.split(","):
            for size in map(int, args.sizes.split(",")):
                needs = gen_workflows.graph(shape, size)
                source = gen_workflows.OUT / f"{shape}-{size}.flow.yaml"
                source.write_text(gen_workflows.flowrun_yaml(shape, size, needs))
                for engine, extra in (("github", []), ("argo", ["--image", "example/flowrun:1"])):
                    out = Path(scratch) / f"{shape}-{size}.{engine}.yaml"
                    command = [flowrun, "export", str(source), "--to", engine, "-o", str(out)] + extra
                    seconds = best_time(command, args.repeat)
                    text = out.read_text()
                    written = text.count("\n    name: ") if engine == "github" else text.count("\n            template: ") - 1
                    print(f"{shape}-{size:<8} {engine:<7} {seconds:7.3f} {written:9d}  {'ok' if seconds < 1 else 'SLOW'}")


if __name__ == "__main__":
    main()
