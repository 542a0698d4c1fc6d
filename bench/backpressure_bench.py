#!/usr/bin/env python3
"""Back-pressure benchmark: one task prints LINES lines of 100 bytes (500,000 by default: 50 MB)
while flowrun's standard output is a pipe that nobody reads. Measures what the task wrote
before flowrun stopped reading its pipe (it must then sit in write(2)), flowrun's resident
memory while held back, then reads everything and times it, checking that every line arrived
whole and that the run succeeded. Prints one table row per round.

This was the unit test BackPressureTests.aTaskIsHeldBackWhileNobodyReadsAndLosesNothing at
50 MB (37-77 s in a debug build); the suite keeps a 6 MB version that asserts the behaviour.
Targets: held back after at most a few MB, under 64 MB resident, nothing lost.
"""
import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from measure import build_flowrun, log

BENCH = Path(__file__).resolve().parent
OUT = BENCH / "out" / "backpressure"
TARGET_RSS_MB = 64.0
TIMEOUT_S = 600.0

FLOOD = """import os, sys
open("pid", "w").write(str(os.getpid()))
block = (b"x" * 99 + b"\\n") * 1000
for _ in range({lines} // 1000): sys.stdout.buffer.write(block)
sys.stdout.flush()
open("marker", "w").close()
"""


def read_proc(pid, name):
    try:
        return Path(f"/proc/{pid}/{name}").read_text()
    except OSError:
        return None


def bytes_written(pid):
    text = read_proc(pid, "io")
    for line in (text or "").splitlines():
        if line.startswith("wchar:"):
            return int(line.split()[1])
    return None


def in_write(pid):
    text = read_proc(pid, "syscall")
    return bool(text) and text.split()[0] == ("1" if os.uname().machine == "x86_64" else "64")


def resident_mb(pid):
    for line in (read_proc(pid, "status") or "").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024 / 1e6
    return None


def one_round(flowrun, lines):
    """(held bytes or None, resident MB while held, seconds to drain, lines whole, lines bad, exit)."""
    for name in ("pid", "marker"):
        (OUT / name).unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
    env["NO_COLOR"] = "1"
    process = subprocess.Popen([str(flowrun), "run", "--events", "plain", "flow.yaml"], cwd=OUT, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + TIMEOUT_S
    pid = None
    while pid is None and time.monotonic() < deadline:
        text = read_proc_file(OUT / "pid")
        pid = int(text) if text else None
        time.sleep(0.01)
    held, last, same = None, None, 0
    while pid and time.monotonic() < deadline and not (OUT / "marker").exists():
        written = bytes_written(pid)
        if written is not None and written == last and in_write(pid):
            same += 1
            if same == 20:
                held = written
                break
        else:
            same = 0
        last = written
        time.sleep(0.05)
    rss = resident_mb(process.pid)
    start = time.monotonic()
    expected = b"[flood] | " + b"x" * 99 + b"\n"
    whole = bad = 0
    for line in process.stdout:
        if line.startswith(b"[flood] |"):
            if line == expected:
                whole += 1
            else:
                bad += 1
    code = process.wait(timeout=TIMEOUT_S)
    return held, rss, time.monotonic() - start, whole, bad, code


def read_proc_file(path):
    try:
        return path.read_text()
    except OSError:
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, default=500_000, help="lines of 100 bytes the task prints (default 500000)")
    ap.add_argument("--rounds", type=int, default=3, help="runs (default 3)")
    ap.add_argument("--flowrun", help="flowrun binary (default: swift build -c release --product flowrun)")
    args = ap.parse_args()

    flowrun = Path(args.flowrun).resolve() if args.flowrun else build_flowrun()
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "flood.py").write_text(FLOOD.format(lines=args.lines))
    (OUT / "flow.yaml").write_text("version: 1\nname: flood\ntasks:\n  flood: {shell: [python3, flood.py]}\n")
    load_before = os.getloadavg()[0]
    rows, ok = [], True
    for index in range(args.rounds):
        log(f"  round {index + 1}")
        held, rss, drain, whole, bad, code = one_round(flowrun, args.lines)
        good = held is not None and rss is not None and rss < TARGET_RSS_MB and whole == args.lines and bad == 0 and code == 0
        ok = ok and good
        rows.append((index + 1, held, rss, drain, whole, bad, code, good))

    print(f"\nload average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after; {args.lines} lines "
          f"({args.lines * 100 / 1e6:.0f} MB); flowrun {flowrun}\n")
    print("| round | held back after MB | RSS while held MB | drain s | drain MB/s | lines whole | lines bad | exit | ok |")
    print("|---|---|---|---|---|---|---|---|---|")
    for index, held, rss, drain, whole, bad, code, good in rows:
        held_text = f"{held / 1e6:.2f}" if held is not None else "never (ran to its end)"
        rss_text = f"{rss:.1f}" if rss is not None else "?"
        print(f"| {index} | {held_text} | {rss_text} | {drain:.2f} | {args.lines * 100 / 1e6 / drain:.0f} | {whole} | {bad} | {code} | {'yes' if good else 'NO'} |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
