#!/usr/bin/env python3
"""combine `format: concat|tar|tar.gz|zip` against its peers, over generated input trees.

Usage:
  python3 scripts/archivepeer.py [--flowrun .build/debug/flowrun] [--seed 1] [--trees 6] [--keep] [--big]

Each tree (under `tree/`) has unicode names (NFC and NFD), names with spaces, a newline, a
backslash, brackets, a leading `-`; paths longer than 100 and 255 bytes; empty files;
symbolic links to files (stored as the file, as `tar -h`); hard links; executable,
setuid and odd modes; large-ish files; many files; owner ids past ustar's 7 octal digits; and
mtimes before 1970, before 1980 (zip's DOS floor), with nanoseconds and past 2038. Each tree is
combined four ways (`inputs: [tree/**]`, with `base` and, on odd seeds, a `prefix`) and each
archive read back by its peers:
- tar, tar.gz: `bsdtar -tvf` and `bsdtar -xpf`, GNU `tar -tvf` and `tar -xpf`, Python tarfile;
- zip: Python zipfile (testzip, names, modes in external_attr, date_time), `unzip -t`,
  `unzip` and `bsdtar -xpf`;
- concat: the bytes, in the byte order of the names.
Every peer must list the same names and extract the same bytes and modes (less setuid, setgid
and sticky, as README says) as the tree has. `--big` adds one 4.5 GiB sparse file (zip64).
"""

import argparse
import calendar
import hashlib
import json
import os
import random
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
import time
import unicodedata
import zipfile

NAMES = [
    "plain.txt", "with space.txt", "tab\there.txt", "new\nline.txt", "back\\slash.txt", "a[1].txt",
    "star*.txt", "q?.txt", "-dash.txt", "#hash.txt", "colon:x.txt", "caf\u00e9.txt", "cafe\u0301-nfd.txt",
    "\u65e5\u672c\u8a9e.txt", "\u0440\u0443\u0441.txt", "emoji\U0001F600.txt", "UPPER.TXT", "percent%20.txt",
    "quote'\".txt", "trailing.", "x" * 200 + ".txt", "\u0301leading-combining-mark.txt",
]


TOP = "\u0301top.txt"


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def make_tree(root, rng, big):
    """Returns {relative name: (bytes digest, size, mode & 0o777, mtime ns)} of what an archive must hold."""
    files = {}
    mtimes = [0, 1, -86400 * 365 * 5, 86400 * 365 * 9 + 7, 1_000_000_000, 2_200_000_000, 4_102_444_800]
    for name in NAMES:
        folder = rng.choice(["", "sub/", "sub/deeper/", "\u00fcber/", "sp ace/"])
        data = bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 100, 513, 4096])))
        write(os.path.join(root, folder + name), data)
    # A path longer than 100 bytes and one longer than 255, in folders.
    long_dir = "/".join(["d" * 60 + str(i) for i in range(5)])
    write(os.path.join(root, long_dir, "f" * 120 + ".bin"), b"long path\n")
    write(os.path.join(root, "m" * 90 + "/" + "n" * 90 + ".txt"), b"over 100 bytes, split at a slash\n")
    # Many files and large-ish ones.
    for i in range(rng.choice([50, 300])):
        write(os.path.join(root, "many", f"f{i:04}"), str(i).encode())
    write(os.path.join(root, "large.bin"), os.urandom(rng.choice([3, 9]) * 1024 * 1024 + 17))
    write(os.path.join(root, "zeros.bin"), bytes(5 * 1024 * 1024))
    write(os.path.join(root, "empty"), b"")
    # Links: a symlink to a file (stored as the file), a hard link (stored as a second file).
    os.symlink("plain.txt" if os.path.exists(os.path.join(root, "plain.txt")) else "large.bin", os.path.join(root, "link-to-file"))
    os.link(os.path.join(root, "large.bin"), os.path.join(root, "hard-link"))
    if big:
        with open(os.path.join(root, "sparse-4.5G"), "wb") as f:
            f.truncate(4608 * 1024 * 1024)
            f.seek(4608 * 1024 * 1024 - 5)
            f.write(b"tail\n")
    # Modes, owners, mtimes.
    regular = []
    for folder, _, names in os.walk(root):
        for n in names:
            p = os.path.join(folder, n)
            if not os.path.islink(p):
                regular.append(p)
    regular.sort()
    for p in regular:
        os.chmod(p, rng.choice([0o644, 0o600, 0o755, 0o700, 0o640, 0o4755, 0o2755, 0o1777, 0o444, 0o751]))
        if os.geteuid() == 0 and rng.random() < 0.2:
            os.chown(p, rng.choice([1000, 65534, 3_000_000]), rng.choice([1000, 3_000_000]))
        seconds = rng.choice(mtimes)
        os.utime(p, ns=(seconds * 10**9, seconds * 10**9 + rng.choice([0, 123456789])))
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for n in names:
            if n.startswith("."):
                continue
            p = os.path.join(folder, n)
            st = os.stat(p)
            files[os.path.relpath(p, root)] = (digest(p), st.st_size, st.st_mode & 0o777, st.st_mtime_ns, st.st_uid, st.st_gid)
    return files


def digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def extracted(root):
    out = {}
    for folder, _, names in os.walk(root):
        for n in names:
            p = os.path.join(folder, n)
            st = os.lstat(p)
            out[os.path.relpath(p, root)] = (digest(p) if stat.S_ISREG(st.st_mode) else "not a file", st.st_size, st.st_mode & 0o7777, st.st_mtime_ns)
    return out


def compare(tool, want, got, problems, prefix, check_mtime=True, mtime_step=1):
    want = {prefix + k: v for k, v in want.items()}
    missing = sorted(set(want) - set(got))
    extra = sorted(set(got) - set(want))
    if missing:
        problems.append(f"{tool}: missing {[m[:60] for m in missing[:5]]} ({len(missing)})")
    if extra:
        problems.append(f"{tool}: extra {[e[:60] for e in extra[:5]]} ({len(extra)})")
    for name in sorted(set(want) & set(got)):
        w, g = want[name], got[name]
        if w[0] != g[0]:
            problems.append(f"{tool}: {name[:60]!r}: content differs")
        elif w[2] != g[2]:
            problems.append(f"{tool}: {name[:60]!r}: mode {oct(g[2])}, want {oct(w[2])}")
        elif check_mtime and w[3] // (mtime_step * 10**9) != g[3] // (mtime_step * 10**9):
            problems.append(f"{tool}: {name[:60]!r}: mtime {g[3] / 1e9}, want {w[3] / 1e9}")


# Differences that are the peer's, not the archive's: each checked by hand against bsdtar's own
# archive of the same file (see the report in docs/processes.md).
PEER_QUIRKS = [
    # libarchive's reader gives an NFD name in NFC (GNU tar, tarfile and zipfile read the NFD bytes).
    ("bsdtar -x", "nfd", "bsdtar extracts an NFD name in NFC"),
    # Info-ZIP unzip drops control characters from the names it writes.
    ("unzip -x zip", "control", "unzip drops a tab or newline from a name"),
    # bsdtar takes a zip name's backslash for a folder separator (Info-ZIP and zipfile do not).
    ("bsdtar -x zip", "backslash", "bsdtar reads a zip name's backslash as /"),
    # libarchive writes pax time -S.N for -(S + N) where the time is -S + N (bsdtar -c the same),
    # and reads a zip UT time before 1970 as unsigned (bsdtar -c's own zip the same).
    ("", "pre1970", "libarchive: a time before 1970 (pax fraction sign; zip UT read as unsigned)"),
]


def quirk(problem):
    if "mtime -15768" in problem or "mtime 4137287296" in problem:
        return PEER_QUIRKS[3][2]
    if problem.startswith("bsdtar -x zip") and "\\" in problem:
        return PEER_QUIRKS[2][2]
    if problem.startswith("bsdtar -x") and "nfd" in problem:
        return PEER_QUIRKS[0][2]
    if problem.startswith("unzip -x zip") and ("\\n" in problem or "\\t" in problem or "line.txt" in problem or "here.txt" in problem):
        return PEER_QUIRKS[1][2]
    return None


def run(args, cwd=None):
    return subprocess.run(args, cwd=cwd, capture_output=True)


def check_tar(path, want, prefix, work, problems, gz):
    # The listing: what bsdtar and GNU tar see.
    for tool in (["bsdtar", "-tvf", path], ["tar", "-tvf", path]):
        r = run(tool)
        if r.returncode != 0:
            problems.append(f"{tool[0]} -tvf exit {r.returncode}: {r.stderr.decode(errors='replace')[:300]}")
    for tool in (["bsdtar", "-xpf"], ["tar", "--same-owner", "-xpf"]):
        out = os.path.join(work, tool[0] + ("-gz" if gz else ""))
        os.makedirs(out)
        r = run(tool + [path, "-C", out])
        if r.returncode != 0:
            problems.append(f"{tool[0]} -x exit {r.returncode}: {r.stderr.decode(errors='replace')[:300]}")
        compare(tool[0] + " -x", want, extracted(out), problems, prefix)
        shutil.rmtree(out)
    with tarfile.open(path) as t:
        names = {}
        for m in t.getmembers():
            names[m.name] = m
        for name, (d, size, mode, mtime, uid, gid) in want.items():
            m = names.get(prefix + name)
            if m is None:
                problems.append(f"tarfile: no member {prefix + name!r:.60}")
                continue
            if not m.isreg() or m.size != size or m.mode != mode or m.uid != uid or m.gid != gid:
                problems.append(f"tarfile: {name[:60]!r}: type {m.type} size {m.size}/{size} mode {oct(m.mode)}/{oct(mode)} uid {m.uid}/{uid} gid {m.gid}/{gid}")
            if m.mtime != mtime // 10**9 and abs(float(m.mtime) - mtime / 1e9) > 1e-6:
                problems.append(f"tarfile: {name[:60]!r}: mtime {m.mtime}, want {mtime / 1e9}")


def dos_time(ns):
    t = time.localtime(ns // 10**9)
    return (t.tm_year, t.tm_mon, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec - t.tm_sec % 2)


def check_zip(path, want, prefix, work, problems):
    with zipfile.ZipFile(path) as z:
        bad = z.testzip()
        if bad:
            problems.append(f"zipfile.testzip: {bad!r}")
        infos = {i.filename: i for i in z.infolist()}
        for name, (d, size, mode, mtime, uid, gid) in want.items():
            i = infos.get(prefix + name)
            if i is None:
                problems.append(f"zipfile: no member {prefix + name!r:.60}")
                continue
            if not i.flag_bits & 0x800 and any(ord(c) > 127 for c in i.filename):
                problems.append(f"zipfile: {name[:60]!r}: no UTF-8 flag")
            if i.file_size != size or (i.external_attr >> 16) & 0o777 != mode or stat.S_IFMT(i.external_attr >> 16) != stat.S_IFREG:
                problems.append(f"zipfile: {name[:60]!r}: size {i.file_size}/{size} external_attr mode {oct(i.external_attr >> 16)} want {oct(mode)}")
            seconds = mtime // 10**9
            if 315532800 + 86400 <= seconds < 4354819200 - 86400 and i.date_time != dos_time(mtime):
                problems.append(f"zipfile: {name[:60]!r}: date_time {i.date_time}, want {dos_time(mtime)}")
    r = run(["unzip", "-t", "-qq", path])
    if r.returncode != 0:
        problems.append(f"unzip -t exit {r.returncode}: {(r.stdout + r.stderr).decode(errors='replace')[:300]}")
    for tool in (["unzip", "-qq", "-X", path, "-d"], ["bsdtar", "-xpf", path, "-C"]):
        out = os.path.join(work, tool[0] + "-zip")
        os.makedirs(out)
        r = run(tool + [out])
        if r.returncode != 0:
            problems.append(f"{tool[0]} extract exit {r.returncode}: {(r.stdout + r.stderr).decode(errors='replace')[:300]}")
        # zip keeps 2-second local times (bsdtar reads the UT field's seconds): compare to 2 s.
        compare(tool[0] + " -x zip", want, extracted(out), problems, prefix, check_mtime=tool[0] == "bsdtar", mtime_step=1)
        shutil.rmtree(out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--flowrun", default=".build/debug/flowrun")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--trees", type=int, default=4)
    parser.add_argument("--big", action="store_true")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    flowrun = os.path.abspath(args.flowrun)
    total_problems = 0
    counts = {"entries": 0, "archives": 0}
    for t in range(args.trees):
        seed = args.seed * 1000 + t
        rng = random.Random(seed)
        folder = tempfile.mkdtemp(prefix="archivepeer.")
        root = os.path.join(folder, "tree")
        want = make_tree(root, rng, args.big and t == 0)
        # Setuid, setgid and sticky are dropped: README.
        prefix = rng.choice(["", "app-1.0/", "p\u00e9/x-"]) if seed % 2 else ""
        tasks = ""
        for fmt, ext in (("concat", "bin"), ("tar", "tar"), ("tar.gz", "tar.gz"), ("zip", "zip")):
            tasks += f"  {fmt.replace('.', '_')}:\n    combine:\n      inputs: [\"tree/**\"]\n      to: out/all.{ext}\n      format: {fmt}\n"
            if fmt != "concat":
                tasks += "      base: tree\n" + (f"      prefix: {json.dumps(prefix)}\n" if prefix else "")
        # Without base: entries named relative to the workdir (here `tree/...`).
        # A name starting with a combining mark right below the workdir: the `/` and the mark
        # are one Character, which a Character-wise prefix test took for outside the workdir.
        write(os.path.join(folder, TOP), b"top\n")
        tasks += f"  nobase:\n    combine:\n      inputs: [\"tree/**\", {json.dumps(TOP)}]\n      to: out/nobase.tar\n      format: tar\n"
        with open(os.path.join(folder, "w.yaml"), "w") as f:
            f.write("version: 1\nname: archivepeer\ntasks:\n" + tasks)
        r = subprocess.run([flowrun, "run", "w.yaml", "--keep-going", "--events", "plain"], cwd=folder, capture_output=True, text=True)
        problems = []
        if r.returncode != 0:
            problems.append(f"flowrun exit {r.returncode}: {(r.stdout + r.stderr)[-600:]}")
        work = os.path.join(folder, "x")
        os.makedirs(work)
        out = os.path.join(folder, "out")
        if os.path.exists(os.path.join(out, "all.bin")):
            joined = hashlib.sha256()
            for name in sorted(want, key=lambda n: os.fsencode("tree/" + n)):
                with open(os.path.join(root, name), "rb") as f:
                    while chunk := f.read(1 << 20):
                        joined.update(chunk)
            if joined.hexdigest() != digest(os.path.join(out, "all.bin")):
                problems.append("concat: bytes differ from the files joined in byte order of their names")
        if os.path.exists(os.path.join(out, "all.tar")):
            check_tar(os.path.join(out, "all.tar"), want, prefix, work, problems, False)
        if os.path.exists(os.path.join(out, "all.tar.gz")):
            check_tar(os.path.join(out, "all.tar.gz"), want, prefix, work, problems, True)
        if os.path.exists(os.path.join(out, "nobase.tar")):
            with tarfile.open(os.path.join(out, "nobase.tar")) as archive:
                got = set(archive.getnames())
            named = {"tree/" + n for n in want} | {TOP}
            if got != named:
                problems.append(f"tar without base: names {sorted(got - named)[:3]} instead of {sorted(named - got)[:3]}")
        if os.path.exists(os.path.join(out, "all.zip")):
            check_zip(os.path.join(out, "all.zip"), want, prefix, work, problems)
        quirks = {}
        for p in list(problems):
            q = quirk(p)
            if q:
                quirks[q] = quirks.get(q, 0) + 1
                problems.remove(p)
        counts["entries"] += len(want)
        counts["archives"] += 5
        print(f"tree {t} (seed {seed}, prefix {prefix!r}): {len(want)} files, {len(problems)} problems, {folder}")
        for p in problems:
            print("   ", p)
        for q, n in sorted(quirks.items()):
            print(f"    peer quirk x{n}: {q}")
        total_problems += len(problems)
        if not problems and not args.keep:
            shutil.rmtree(folder)
    print(f"{args.trees} trees, {counts['archives']} outputs, {counts['entries']} entries each read back by every peer; {total_problems} problems")
    sys.exit(1 if total_problems else 0)


if __name__ == "__main__":
    main()
