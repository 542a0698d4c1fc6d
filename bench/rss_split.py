#!/usr/bin/env python3
"""Where a process's resident memory lies over its life: file-backed pages (the binary and
libraries, files mapped) and anonymous ones (heap, stacks), sampled from /proc/PID/status as
fast as Python reads it (every ~50 us), with the peak the kernel kept (VmHWM).

Prints the peak RSS, the sample nearest to it split into RssFile and RssAnon, the largest of
each seen, and with --trace every sample (ms after the start, MB). The split of a run shorter
than a few milliseconds is not caught; VmHWM always is (read once the process is a zombie is
too late: it is read from the last sample that had it).

Usage: rss_split.py [--trace] [--cwd DIR] -- COMMAND...
"""
import argparse
import os
import subprocess
import sys
import time

FIELDS = ("VmHWM", "VmRSS", "RssAnon", "RssFile", "RssShmem")


def sample(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            text = f.read()
    except OSError:
        return None
    values = {}
    for line in text.splitlines():
        name, _, rest = line.partition(":")
        if name in FIELDS:
            values[name] = int(rest.split()[0]) / 1024  # kB -> MiB
    return values if "VmRSS" in values else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trace", action="store_true", help="print every sample")
    ap.add_argument("--cwd")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    command = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not command:
        sys.exit("no command")
    start = time.monotonic()
    process = subprocess.Popen(command, cwd=a.cwd, stdout=subprocess.DEVNULL)
    samples = []
    while process.poll() is None:
        values = sample(process.pid)
        if values:
            samples.append((time.monotonic() - start, values))
    if not samples:
        sys.exit("no sample taken")
    hwm = max(v.get("VmHWM", 0) for _, v in samples)
    at, peak = max(samples, key=lambda s: s[1]["VmRSS"])
    print(f"exit {process.returncode}, {len(samples)} samples, peak RSS (VmHWM) {hwm:.1f} MiB")
    print(f"largest sample at {at * 1000:.1f} ms: RSS {peak['VmRSS']:.1f} = file {peak.get('RssFile', 0):.1f}"
          f" + anon {peak.get('RssAnon', 0):.1f} + shmem {peak.get('RssShmem', 0):.1f} MiB")
    print(f"largest file-backed {max(v.get('RssFile', 0) for _, v in samples):.1f} MiB,"
          f" largest anonymous {max(v.get('RssAnon', 0) for _, v in samples):.1f} MiB")
    if a.trace:
        last = None
        for t, v in samples:
            row = (round(v["VmRSS"], 1), round(v.get("RssFile", 0), 1), round(v.get("RssAnon", 0), 1))
            if row != last:
                print(f"{t * 1000:8.1f} ms  rss {row[0]:6.1f}  file {row[1]:6.1f}  anon {row[2]:6.1f}")
                last = row


if __name__ == "__main__":
    main()
