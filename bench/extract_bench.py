#!/usr/bin/env python3
"""Extraction benchmark: flowrun's `decompress` next to bsdtar and GNU tar (unzip for the zip,
which GNU tar does not read) on generated archives: a ~500 MB tree as tar.gz and as zip, and a
~70 MB tar.xz. The commands run in turns (each round runs every command once, in rotated
order), so that a busy moment of the machine does not fall on one command. Prints wall time,
MB/s of extracted data, peak RSS (ru_maxrss, from measure.py's launcher) and flowrun's time as
a ratio of bsdtar's. The archives are made once and kept in bench/out/extract/.
"""
import argparse
import os
import random
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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=500_000_000, help="bytes of the tar.gz/zip tree (default 5e8)")
    ap.add_argument("--xz-size", type=int, default=200_000_000, help="bytes of the tar.xz tree (default 2e8: ~70 MB of xz)")
    ap.add_argument("--rounds", type=int, default=3, help="turns of every command (default 3): median wall, max RSS")
    ap.add_argument("--flowrun", help="flowrun binary (default: swift build -c release --product flowrun)")
    args = ap.parse_args()
    if not shutil.which("bsdtar"):
        sys.exit("bsdtar is missing: apt-get install libarchive-tools")

    flowrun = Path(args.flowrun).resolve() if args.flowrun else build_flowrun()
    archives = make_archives(args.size, args.xz_size)
    results = {}
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
                r = launch(argv, TIMEOUT_S, cwd=OUT)
                if r.code != 0 or r.timed_out:
                    log(f"    FAILED (exit {r.code}, timed out {r.timed_out})")
                results.setdefault((kind, label), []).append(r)
    shutil.rmtree(OUT / "into", ignore_errors=True)

    print(f"\nload average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after; {args.rounds} rounds; flowrun {flowrun}\n")
    print("| archive | size MB | data MB | command | wall s | MB/s | peak RSS MB | x bsdtar | exit |")
    print("|---|---|---|---|---|---|---|---|---|")
    for kind, archive, _, data in archives:
        base = statistics.median(r.wall for r in results[(kind, "bsdtar -xf")])
        for label, _ in commands(flowrun, kind, archive, OUT / "into"):
            runs = results[(kind, label)]
            wall = statistics.median(r.wall for r in runs)
            code = max((r.code for r in runs), key=abs)
            print(f"| {kind} | {archive.stat().st_size / 1e6:.0f} | {data / 1e6:.0f} | {label} | {wall:.2f} | "
                  f"{data / 1e6 / wall:.0f} | {max(r.rss for r in runs):.1f} | {wall / base:.2f} | {code} |")
    return 0 if all(r.code == 0 for runs in results.values() for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
