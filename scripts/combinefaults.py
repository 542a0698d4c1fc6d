#!/usr/bin/env python3
"""combine under faults: inputs that vanish, shrink, grow or turn into something else while the
task runs, `to` inside the inputs' folder, and a full disk (a 1 MiB tmpfs, as root).

Usage:
  python3 scripts/combinefaults.py [--flowrun .build/debug/flowrun] [--size-mb 300]

The go signal for each mutation is the task's hidden temporary file appearing beside `to`
(the task has started writing), not a sleep. Each case prints flowrun's result, what is at
`to` and whether a temporary file was left. A failed task must name the input and leave
nothing at `to`; a green one must have written what the inputs held.
"""

import argparse
import glob
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile

from PIL import Image


def start(flowrun, folder, task):
    with open(os.path.join(folder, "w.yaml"), "w") as f:
        f.write("version: 1\nname: faults\ntasks:\n  t:\n    combine: " + task + "\n")
    return subprocess.Popen([flowrun, "run", "w.yaml", "--events", "plain"], cwd=folder,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def wait_for_temp(folder, proc):
    while proc.poll() is None:
        if glob.glob(os.path.join(folder, "out", ".*.flowrun-*")):
            return True
        time.sleep(0.005)
    return False


def finish(name, folder, proc, check=None):
    out, _ = proc.communicate()
    failed = [line for line in out.splitlines() if "failed in" in line]
    left = sorted(os.listdir(os.path.join(folder, "out"))) if os.path.isdir(os.path.join(folder, "out")) else []
    temps = [n for n in left if ".flowrun-" in n]
    verdict = f"exit {proc.returncode}; " + (failed[0].strip() if failed else "succeeded")
    verdict += f"; out/: {[n for n in left if n not in temps]}" + (f"; TEMP LEFT {temps}" if temps else "")
    if check and proc.returncode == 0:
        verdict += "; " + check()
    print(f"{name:34} {verdict}")
    return proc.returncode, left


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--flowrun", default=".build/debug/flowrun")
    parser.add_argument("--size-mb", type=int, default=300)
    parser.add_argument("--only-disk", action="store_true")
    args = parser.parse_args()
    flowrun = os.path.abspath(args.flowrun)
    size = args.size_mb << 20
    only_disk = args.only_disk

    def fresh():
        folder = tempfile.mkdtemp(prefix="combinefaults.")
        with open(os.path.join(folder, "big.bin"), "wb") as f:
            f.truncate(size)
        with open(os.path.join(folder, "small.txt"), "w") as f:
            f.write("small\n")
        return folder

    for fmt in ("tar.gz", "zip", "concat") if not only_disk else ():
        task = f"{{inputs: [big.bin, small.txt], to: out/all.{fmt}, format: {fmt}}}"
        folder = fresh()
        proc = start(flowrun, folder, task)
        if wait_for_temp(folder, proc):
            os.unlink(os.path.join(folder, "small.txt"))
        finish(f"{fmt}: later input removed", folder, proc)

        folder = fresh()
        proc = start(flowrun, folder, task)
        if wait_for_temp(folder, proc):
            os.truncate(os.path.join(folder, "big.bin"), 1 << 20)
        finish(f"{fmt}: input shrinks", folder, proc)

        folder = fresh()
        proc = start(flowrun, folder, task)
        if wait_for_temp(folder, proc):
            with open(os.path.join(folder, "big.bin"), "ab") as f:
                f.write(b"grown\n")

        def sizes(folder=folder, fmt=fmt):
            path = os.path.join(folder, "out", f"all.{fmt}")
            if fmt == "zip":
                return "entry sizes " + str([i.file_size for i in zipfile.ZipFile(path).infolist()])
            if fmt == "tar.gz":
                return "entry sizes " + str([m.size for m in tarfile.open(path).getmembers()])
            return f"{os.path.getsize(path)} bytes"
        finish(f"{fmt}: input grows", folder, proc, sizes)
        print(f"{'':34} (big.bin was {size} bytes before it grew by 6)")

    if only_disk:
        return full_disk(flowrun, fresh)
    # An image input replaced by text while the first (large) one decodes.
    folder = tempfile.mkdtemp(prefix="combinefaults.")
    Image.effect_noise((3000, 3000), 64).convert("RGB").save(os.path.join(folder, "a.png"))
    Image.new("RGB", (10, 10), (1, 2, 3)).save(os.path.join(folder, "b.png"))
    proc = start(flowrun, folder, "{inputs: [a.png, b.png], to: out/all.png, format: image, size: 100x100}")
    if wait_for_temp(folder, proc):
        with open(os.path.join(folder, "b.png.new"), "w") as f:
            f.write("no longer an image\n")
        os.rename(os.path.join(folder, "b.png.new"), os.path.join(folder, "b.png"))
    finish("image: input replaced by text", folder, proc)

    # `to` inside the folder a pattern reads, run twice: the second must not hold the first.
    folder = tempfile.mkdtemp(prefix="combinefaults.")
    os.makedirs(os.path.join(folder, "d"))
    for n in "ab":
        with open(os.path.join(folder, "d", n), "w") as f:
            f.write(n)
    for run in (1, 2):
        proc = start(flowrun, folder, "{inputs: [\"d/**\"], to: d/all.tar, format: tar}")
        proc.communicate()
        names = tarfile.open(os.path.join(folder, "d", "all.tar")).getnames()
        print(f"{'to inside the input folder, run ' + str(run):34} exit {proc.returncode}; entries {names}")

    full_disk(flowrun, fresh)


def full_disk(flowrun, fresh):
    """A 1 MiB tmpfs at out/ (root only), holding an old `to` that must survive."""
    if os.geteuid() == 0:
        for fmt in ("concat", "tar", "tar.gz", "zip", "image"):
            folder = fresh()
            out = os.path.join(folder, "out")
            os.makedirs(out)
            if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", out]).returncode != 0:
                print("full disk: cannot mount a tmpfs, skipped")
                break
            try:
                with open(os.path.join(out, "old"), "w") as f:
                    f.write("old\n")
                if fmt == "image":
                    Image.effect_noise((700, 700), 64).convert("RGB").save(os.path.join(folder, "a.png"))
                    task = "{inputs: [a.png], to: out/old, format: image}"
                else:  # incompressible, so that gzip and deflate fill the disk too
                    with open(os.path.join(folder, "random.bin"), "wb") as f:
                        f.write(os.urandom(3 << 20))
                    task = f"{{inputs: [random.bin, small.txt], to: out/old, format: {fmt}}}"
                proc = start(flowrun, folder, task)
                code, left = finish(f"{fmt}: full disk", folder, proc)
                with open(os.path.join(out, "old"), "rb") as f:
                    kept = f.read() == b"old\n"
                print(f"{'':34} old file {'kept' if kept else 'CHANGED'}")
            finally:
                subprocess.run(["umount", out])
    else:
        print("full disk: not root, skipped")


if __name__ == "__main__":
    main()
