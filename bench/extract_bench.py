#!/usr/bin/env python3
"""Extraction benchmark: flowrun's `decompress` next to bsdtar and GNU tar (unzip for the zip,
which GNU tar does not read) on generated archives: a ~1.36 GB tree as tar.gz and as zip (about
570 MB each), and a ~70 MB tar.xz. The commands run in turns (each round runs every command
once, in rotated order), so that a busy moment of the machine does not fall on one command.
Prints wall time, MB/s of extracted data, user+sys CPU, peak RSS (ru_maxrss, from measure.py's
launcher), the 1-minute load average while the command ran, and each time as a ratio of the
peer's: bsdtar for the tar.gz and the zip, GNU tar for the tar.xz (the issue 23 targets). The
archives are made once and kept in bench/out/extract/.
"""
import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

from measure import build_flowrun, launch, log

BENCH = Path(__file__).resolve().parent
OUT = BENCH / "out" / "extract"
TIMEOUT_S = 900.0
WORDS = ("let var func return struct enum case switch import if else guard for while in "
         "the of a and to archive entry block stream folder file bytes data").split()


def write_tree(root, size, seed):
    """About `size` bytes in files of 4 KB to 4 MB: three parts source-like text, one part
    random bytes (which do not compress), as a release tree is."""
    rng = random.Random(seed)
    written, index = 0, 0
    while written < size:
        folder = root / f"pkg{index // 100:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        length = min(size - written, int(4096 * 1024 ** rng.random()))
        path = folder / f"file{index:05d}"
        if index % 4 == 3:
            path.write_bytes(rng.randbytes(length))
        else:
            line = lambda: " ".join(rng.choice(WORDS) for _ in range(10)) + f" {rng.randrange(10 ** 6)}\n"
            lines = [line() for _ in range(2000)]
            text = "".join(rng.choice(lines) for _ in range(length // 60 + 1))[:length]
            path.write_text(text)
        written += length
        index += 1
    return written


def make_archives(size_gz, size_xz):
    """(name, path, bytes of data) of each archive, made unless it is there already."""
    OUT.mkdir(parents=True, exist_ok=True)
    made = []
    for name, size, seed in (("tree", size_gz, 1), ("small", size_xz, 2)):
        tree = OUT / f"{name}-src"
        marker = OUT / f"{name}.size"
        if not marker.exists():
            shutil.rmtree(tree, ignore_errors=True)
            log(f"writing a {size / 1e6:.0f} MB tree in {tree}")
            marker.write_text(str(write_tree(tree / name, size, seed)))
        made.append((name, tree, int(marker.read_text())))
    (tree, tree_dir, tree_bytes), (small, small_dir, small_bytes) = made
    archives = [
        ("tar.gz", OUT / "tree.tar.gz", ["tar", "-czf", OUT / "tree.tar.gz", "-C", tree_dir, tree], tree_bytes),
        ("zip", OUT / "tree.zip", None, tree_bytes),
        ("tar.xz", OUT / "small.tar.xz", ["tar", "-cJf", OUT / "small.tar.xz", "-C", small_dir, small], small_bytes),
    ]
    for kind, path, command, _ in archives:
        if path.exists():
            continue
        log(f"making {path}")
        if command:
            subprocess.run([str(c) for c in command], check=True, env={**os.environ, "XZ_OPT": "-T0 -6"})
        else:
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
                for file in sorted((tree_dir / tree).rglob("*")):
                    z.write(file, file.relative_to(tree_dir))
    return archives


def commands(flowrun, kind, archive, into):
    """(label, argv) of each extractor for one archive, extracting into the folder `into`."""
    workflow = OUT / f"extract-{kind}.yaml"
    workflow.write_text(f"version: 1\ntasks:\n  unpack: {{decompress: {{from: '{archive}', to: '{into}'}}}}\n")
    rows = [
        ("flowrun decompress", [flowrun, "run", "--events", "plain", workflow]),
        ("bsdtar -xf", ["bsdtar", "-xf", archive, "-C", into]),
    ]
    if kind == "zip":
        rows.append(("unzip -q", ["unzip", "-q", archive, "-d", into]))
    else:
        rows.append(("GNU tar -xf", ["tar", "-xf", archive, "-C", into]))
    return rows


PEERS = {"tar.gz": "bsdtar -xf", "zip": "bsdtar -xf", "tar.xz": "GNU tar -xf"}


def children_cpu():
    """User+sys seconds of the children waited for so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv, cwd):
    """measure.launch, with the CPU of the launcher and its command (the launcher's own,
    about 20 ms, is taken off with `launcher_cpu`) and the load average at the end."""
    before = children_cpu()
    r = launch(argv, TIMEOUT_S, cwd=cwd)
    return r, children_cpu() - before, os.getloadavg()[0]


def launcher_cpu():
    """The launcher's own CPU: the median of three runs of `true` through it."""
    return statistics.median(timed(["true"], None)[1] for _ in range(3))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=1_360_000_000,
                    help="bytes of the tar.gz/zip tree (default 1.36e9: ~570 MB archives; the history before issue 23 used 5e8)")
    ap.add_argument("--xz-size", type=int, default=200_000_000, help="bytes of the tar.xz tree (default 2e8: ~70 MB of xz)")
    ap.add_argument("--rounds", type=int, default=3, help="turns of every command (default 3): median wall, max RSS")
    ap.add_argument("--flowrun", help="flowrun binary (default: swift build -c release --product flowrun)")
    args = ap.parse_args()
    if not shutil.which("bsdtar"):
        sys.exit("bsdtar is missing: apt-get install libarchive-tools")

    flowrun = Path(args.flowrun).resolve() if args.flowrun else build_flowrun()
    archives = make_archives(args.size, args.xz_size)
    results = {}
    floor = launcher_cpu()
    load_before = os.getloadavg()[0]
    for round_index in range(args.rounds):
        for kind, archive, _, data in archives:
            into = OUT / "into"
            rows = commands(flowrun, kind, archive, into)
            shift = round_index % len(rows)
            for label, argv in rows[shift:] + rows[:shift]:
                shutil.rmtree(into, ignore_errors=True)
                if not label.startswith("flowrun"):
                    into.mkdir()
                log(f"  round {round_index + 1}: {kind}: {label}")
                r, cpu, load = timed(argv, OUT)
                if r.code != 0 or r.timed_out:
                    log(f"    FAILED (exit {r.code}, timed out {r.timed_out})")
                log(f"    {r.wall:.2f} s wall, {cpu - floor:.2f} s CPU, {r.rss:.1f} MB, load {load:.1f}")
                results.setdefault((kind, label), []).append((r, cpu - floor, load))
    shutil.rmtree(OUT / "into", ignore_errors=True)

    print(f"\nload average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after; {args.rounds} rounds; flowrun {flowrun}\n")
    print("| archive | size MB | data MB | command | wall s | MB/s | CPU s | peak RSS MB | load | x peer wall | x peer CPU | exit |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for kind, archive, _, data in archives:
        peer = results[(kind, PEERS[kind])]
        peer_wall = statistics.median(r.wall for r, _, _ in peer)
        peer_cpu = statistics.median(cpu for _, cpu, _ in peer)
        for label, _ in commands(flowrun, kind, archive, OUT / "into"):
            runs = results[(kind, label)]
            wall = statistics.median(r.wall for r, _, _ in runs)
            cpu = statistics.median(cpu for _, cpu, _ in runs)
            loads = [load for _, _, load in runs]
            code = max((r.code for r, _, _ in runs), key=abs)
            print(f"| {kind} | {archive.stat().st_size / 1e6:.0f} | {data / 1e6:.0f} | {label} | {wall:.2f} | "
                  f"{data / 1e6 / wall:.0f} | {cpu:.2f} | {max(r.rss for r, _, _ in runs):.1f} | "
                  f"{min(loads):.1f}-{max(loads):.1f} | {wall / peer_wall:.2f} | {cpu / peer_cpu:.2f} | {code} |")
    print(f"\npeer: {', '.join(f'{k} {v}' for k, v in PEERS.items())}; medians of {args.rounds} rounds; "
          f"CPU is user+sys of the command and its children")
    return 0 if all(r.code == 0 for runs in results.values() for r, _, _ in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
