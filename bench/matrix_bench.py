#!/usr/bin/env python3
"""Time `flowrun validate` on a workflow of 4 matrix tasks making 1,000 combinations (issue 22's
target: under 0.1 s), each task needing every combination of the one before (187,500 edges).

Usage: matrix_bench.py [--flowrun PATH] [--repeat N]. Without --flowrun, builds flowrun in
release mode. Prints the median wall time and the peak RSS, and whether the target is met.
"""
import argparse
import sys
import tempfile
from pathlib import Path

from measure import build_flowrun, run_once, summarize

TARGET_S = 0.1


def workflow():
    """4 tasks, each a 10 x 5 x 5 matrix (250 combinations), each needing the one before."""
    lines = ["version: 1", "tasks:"]
    values = lambda key, count: ", ".join(f"{key}{i}" for i in range(count))
    for number in range(4):
        lines.append(f"  t{number}:")
        if number:
            lines.append(f"    needs: t{number - 1}")
        lines.append(f"    matrix: {{a: [{values('a', 10)}], b: [{values('b', 5)}], c: [{values('c', 5)}]}}")
        lines.append('    outputs: ["out/${matrix.a}/${matrix.b}-${matrix.c}.txt"]')
        lines.append("    shell: echo $MATRIX_A $MATRIX_B $MATRIX_C")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--flowrun", help="flowrun binary to use (default: build it in release mode)")
    ap.add_argument("--repeat", type=int, default=7)
    a = ap.parse_args()
    flowrun = a.flowrun or str(build_flowrun())
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "matrix.yaml"
        path.write_text(workflow())
        runs = [run_once([flowrun, "validate", str(path)], timeout=60) for _ in range(a.repeat)]
        if any(r is None for r in runs):
            sys.exit("flowrun validate timed out")
        result = summarize(runs)
        if result["code"] != 0:
            sys.exit(f"flowrun validate failed: {result['output']}")
        met = "met" if result["wall"] < TARGET_S else "MISSED"
        print(f"1,000 combinations (4 matrix tasks): median {result['wall']:.3f} s, {result['rss']:.0f} MB; target {TARGET_S} s {met}")


if __name__ == "__main__":
    main()
