#!/usr/bin/env python3
"""One task writes a large output (1.5 GiB by default) and exits; many small tasks are let go
at that moment (they need `waiter`, which ends when the large task does) (session 32,
s32-hashoff): whether they run while the large output is hashed for the up-to-date state, or
wait for the hash (the loop busy with it); the run's wall and CPU time.

Each binary runs the same fresh workflow (its state folder removed first), in turns:
    python3 bench/hashoff_bench.py --flowrun A --flowrun B [--gib 1.5] [--small 300] [--rounds 3]
The events come from `--events jsonl` (each event's `time`, in ms, from the run's first event).
"""
import argparse
import datetime
import json
import os
import resource
import shutil
import subprocess
import tempfile
import time


def workflow(folder, gib, small):
    megabytes = int(gib * 1024)
    lines = ["version: 1", "concurrency: 2", "tasks:"]
    # `big.done` is made as `big` exits; `waiter` ends then, and the small tasks that need it
    # start: while big's output is hashed for the up-to-date state, if the loop is free.
    lines.append(f"  big: {{outputs: [big.bin], shell: 'head -c {megabytes}M /dev/zero > big.bin && touch big.done'}}")
    lines.append("  waiter: {shell: 'until [ -e big.done ]; do sleep 0.005; done'}")
    for index in range(small):
        lines.append(f"  small{index}: {{needs: [waiter], outputs: [small{index}.txt], shell: 'echo {index} > small{index}.txt'}}")
    path = os.path.join(folder, "flow.yaml")
    with open(path, "w") as file:
        file.write("\n".join(lines) + "\n")
    return path


def one_run(flowrun, folder, path):
    for name in os.listdir(folder):
        if name != "flow.yaml":
            target = os.path.join(folder, name)
            shutil.rmtree(target) if os.path.isdir(target) else os.remove(target)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    out = subprocess.run([flowrun, "run", path, "--events", "jsonl"], cwd=folder, capture_output=True, text=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise SystemExit(f"{flowrun} failed: {out.stderr}")
    events = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    for event in events:
        stamp = datetime.datetime.strptime(event["time"], "%Y-%m-%dT%H:%M:%S.%fZ")
        event["ms"] = int((stamp - datetime.datetime(1970, 1, 1)).total_seconds() * 1000)
    origin = events[0]["ms"]
    def at(kind, task):
        return next(e["ms"] - origin for e in events if e.get("event") == kind and e.get("task") == task)

    small = [e["ms"] - origin for e in events if e.get("event") == "task.succeeded" and e.get("task", "").startswith("small")]
    big_end = at("task.succeeded", "big")
    # When big exited: the mtime of the file it touched last.
    big_exit = int(os.stat(os.path.join(folder, "big.done")).st_mtime * 1000) - origin
    waiter_end = at("task.succeeded", "waiter")
    first_small = at("task.started", "small0")
    times = sorted(e["ms"] for e in events if e.get("event") in ("task.started", "task.succeeded"))
    # The longest silence between two task events.
    gaps = [later - earlier for earlier, later in zip(times, times[1:])]
    return wall, cpu, max(gaps), big_exit, big_end, waiter_end, first_small, max(small)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--flowrun", action="append", required=True)
    parser.add_argument("--gib", type=float, default=1.5)
    parser.add_argument("--small", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="hashoff-bench-", dir=os.environ.get("BENCH_DIR", "/var/tmp"))
    try:
        path = workflow(folder, args.gib, args.small)
        print(f"{args.gib} GiB output + {args.small} small tasks, -j2; load average at start {os.getloadavg()}")
        for round_ in range(args.rounds):
            for flowrun in args.flowrun:
                wall, cpu, gap, big_exit, big_end, waiter_end, first_small, last_small = one_run(flowrun, folder, path)
                print(
                    f"round {round_ + 1} {flowrun}: wall {wall:.3f} s, cpu {cpu:.3f} s, longest silence {gap} ms; "
                    f"big exited {big_exit} ms, waiter ended {waiter_end} ms, first small started {first_small} ms, "
                    f"last small {last_small} ms, big succeeded {big_end} ms; load {os.getloadavg()[0]:.1f}",
                    flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
