#!/usr/bin/env python3
"""Run benchmark: run N shell tasks doing `true` at -j2 with flowrun, make, ninja and go-task
side by side, next to the floor (posix_spawn /bin/true N times, 2 at a time) and, when --tools
names it, swift-subprocess doing the same (bench/subprocess); then flowrun's engine alone
(--engine-only) on large random DAGs, and its human live view under a pseudo-terminal; then
check the targets of the run benchmark.

Each command runs --repeat times (the tools taking turns); the table shows the median wall
time and the largest peak RSS (ru_maxrss of the command from os.wait4, taken by a small
launcher; see measure.py). Every command must exit 0. See bench/README.md.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from gen_workflows import csv_list, generate, generate_peers
from measure import REPO, build_flowrun, find_task, head, launch, log

BENCH = Path(__file__).resolve().parent
OUT = BENCH / "out"
RUN_DIR = OUT / "run"  # each command's stdout/stderr (of its last run) and ninja's build folders
SHAPES = ("independent", "chain", "dag")
SIZES = (1000, 5000, 20_000)
QUICK_SIZES = (1000, 5000)
TOOLS = ("flowrun", "make", "ninja", "task", "floor")
EXTRA_TOOLS = ("subprocess",)  # only when named in --tools: its first build takes minutes
JOBS = 2
TIMEOUT_S = 600.0  # any command but go-task (which has --task-timeout)

TARGET_SHAPE, TARGET_N = "dag", 5000
TARGET_FLOOR_RATIO, TARGET_RSS_MB, TARGET_HUMAN_RATIO = 1.25, 60.0, 1.1
ENGINE_SIZES = (10_000, 100_000)
ENGINE_WALL_S, ENGINE_RSS_MB, ENGINE_RATIO = 1.0, 300.0, 12.0


def build_floor():
    """Compile spawn_floor.c into bench/out/ (again when the source is newer)."""
    src, exe = BENCH / "spawn_floor.c", OUT / "spawn_floor"
    OUT.mkdir(parents=True, exist_ok=True)
    if not exe.exists() or exe.stat().st_mtime < src.stat().st_mtime:
        log(f"compiling {src.name}: cc -O2 -o {exe} {src}")
        subprocess.run(["cc", "-O2", "-o", str(exe), str(src)], check=True)
    return exe


def build_subprocess():
    """Build bench/subprocess (swift-subprocess 1.0.2) in release mode into bench/out/; return the
    binary's path. swift build only rebuilds what changed, so later runs take a second or two."""
    cmd = ["swift", "build", "-c", "release", "--package-path", "bench/subprocess",
           "--scratch-path", "bench/out/subprocess-build"]
    log("building subprocess-spawn: " + " ".join(cmd))
    subprocess.run(cmd, cwd=REPO, check=True)
    return REPO / "bench/out/subprocess-build/release/subprocess-spawn"


def find_ninja():
    found = shutil.which("ninja")
    if not found:
        log("ninja not found: apt-get update && apt-get install -y ninja-build")
        subprocess.run(["apt-get", "update", "-qq"], check=True)  # a fresh machine has no package lists
        subprocess.run(["apt-get", "install", "-y", "-qq", "ninja-build"], check=True)
        found = shutil.which("ninja")
    if not found:
        sys.exit("ninja still not found after installing ninja-build; leave it out with --tools")
    return found


def version(cmd):
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=30)
        return (r.stdout.strip().splitlines() or ["?"])[0]
    except (OSError, subprocess.SubprocessError) as e:
        return f"? ({e})"


def bench_env():
    """The environment of every command: ours, less make's variables (a parent make's jobserver
    would change what -j2 means), with a TERM for the live view and no interactive Swift
    crash report (on a terminal it would wait 30 s for a key)."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "GNUMAKEFLAGS")}
    env.setdefault("TERM", "xterm-256color")
    env.pop("NO_COLOR", None)
    env.setdefault("SWIFT_BACKTRACE", "interactive=no")
    return env


class Stat:
    """The runs of one command: median wall, max RSS, first failure."""

    def __init__(self, label):
        self.label, self.walls, self.rss = label, [], []
        self.code, self.fail_head, self.timeout, self.skipped, self.pty_bytes = 0, [], None, False, 0
        self.engine_ms = []  # flowrun --engine-only: workflow.finished's duration_ms per run

    @property
    def ok(self):
        return bool(self.walls) and self.code == 0 and self.timeout is None

    @property
    def wall(self):
        return statistics.median(self.walls) if self.walls else None

    @property
    def peak(self):
        return max(self.rss) if self.rss else None

    def run(self, cmd, timeout, env, out, err, pty=False, before=None):
        """Run cmd once (unless it timed out or was skipped); record the result."""
        if self.timeout is not None or self.skipped:
            return
        for p in (out, err):
            Path(p).write_bytes(b"")
        if before:
            before()
        log(f"  {self.label}")
        r = launch(cmd, timeout, stdout=out, stderr=err, pty=pty, cwd=RUN_DIR, env=env)
        if r.timed_out:
            self.timeout = timeout
            return
        self.walls.append(r.wall)
        self.rss.append(r.rss)
        self.pty_bytes = max(self.pty_bytes, r.pty_bytes)
        if r.code != 0 and self.code == 0:
            self.code = r.code
            # Under a pty stderr is the terminal, whose head and tail the launcher kept in out.
            lines = [ln for ln in head(out if pty else err, lines=40, chars=4000) if ln.strip()]
            self.fail_head = lines[:8] or [ln for ln in head(out, lines=8) if ln.strip()] or ["(no output)"]


def exit_text(code):
    return f"killed by signal {-code}" if code < 0 else f"exit {code}"


def fmt(x, spec, none="-"):
    return none if x is None else format(x, spec)


def ratio(a, b):
    return a.wall / b.wall if a is not None and b is not None and a.ok and b.ok and b.wall > 0 else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=csv_list(int), help="task counts (default 1000,5000,20000)")
    ap.add_argument("--shapes", type=csv_list(str), default=list(SHAPES), help="independent,chain,dag (default: all)")
    ap.add_argument("--repeat", type=int, help="runs per command, median wall (default 3)")
    ap.add_argument("--tools", type=csv_list(str), default=list(TOOLS),
                    help=",".join(TOOLS + EXTRA_TOOLS) + " (default: all but " + ",".join(EXTRA_TOOLS) + ")")
    ap.add_argument("--flowrun", help="flowrun binary (default: swift build -c release --product flowrun "
                                      "--scratch-path .build-release)")
    ap.add_argument("--task", help="go-task binary (default: from PATH, pip-installed if missing)")
    ap.add_argument("--task-timeout", type=float, default=120.0,
                    help="seconds per go-task run (default 120); its larger sizes of that shape are then skipped")
    ap.add_argument("--quick", action="store_true", help="sizes 1000,5000 and repeat 1 (unless given)")
    a = ap.parse_args()
    sizes = sorted(a.sizes or (QUICK_SIZES if a.quick else SIZES))
    repeat = a.repeat or (1 if a.quick else 3)
    if repeat < 1:
        sys.exit("--repeat must be at least 1")
    for t in a.tools:
        if t not in TOOLS + EXTRA_TOOLS:
            sys.exit(f"unknown tool {t!r} (expected some of {','.join(TOOLS + EXTRA_TOOLS)})")
    for s in a.shapes:
        if s not in SHAPES:
            sys.exit(f"unknown shape {s!r} (expected some of {','.join(SHAPES)})")
    tools = [t for t in TOOLS + EXTRA_TOOLS if t in a.tools]

    flowrun = None
    if "flowrun" in tools:
        flowrun = str(Path(a.flowrun).resolve()) if a.flowrun else str(build_flowrun(".build-release"))
        if not os.access(flowrun, os.X_OK):
            sys.exit(f"no flowrun binary at {flowrun}")
    task = (a.task or find_task()) if "task" in tools else None
    ninja = find_ninja() if "ninja" in tools else None
    floor = str(build_floor()) if "floor" in tools else None
    swift_subprocess = str(build_subprocess()) if "subprocess" in tools else None
    RUN_DIR.mkdir(parents=True, exist_ok=True)
    env = bench_env()
    load_before = os.getloadavg()

    def io(tool, shape, n):
        return RUN_DIR / f"{tool}-{shape}-{n}.out", RUN_DIR / f"{tool}-{shape}-{n}.err"

    # ---- peers: every tool on every shape and size ----
    results = {}  # (shape, n, tool) -> Stat
    for shape in a.shapes:
        task_timed_out = False
        for n in sizes:
            log(f"{shape} {n}: generating")
            flow, _ = generate(shape, n)
            mk, nj, taskfile = generate_peers(shape, n)
            ninja_dir = RUN_DIR / f"ninja-{shape}-{n}"
            ninja_dir.mkdir(exist_ok=True)

            def clean_ninja(d=ninja_dir):  # no build log from the previous run: every run alike
                for f in (".ninja_log", ".ninja_deps"):
                    (d / f).unlink(missing_ok=True)

            # A chain can run only one task at a time: its floor spawns one at a time.
            floor_jobs = 1 if shape == "chain" else JOBS
            cmds = {  # tool -> (argv, timeout, before)
                "flowrun": ([flowrun, "run", "-j", str(JOBS), "--events", "plain", flow], TIMEOUT_S, None),
                "make": (["make", f"-j{JOBS}", "-f", mk], TIMEOUT_S, None),
                "ninja": ([ninja, "-j", str(JOBS), "-C", ninja_dir, "-f", nj], TIMEOUT_S, clean_ninja),
                "task": ([task, "--concurrency", str(JOBS), "-t", taskfile, "default"], a.task_timeout, None),
                "floor": ([floor, str(n), str(floor_jobs), "/bin/true"], TIMEOUT_S, None),
                "subprocess": ([swift_subprocess, str(n), str(floor_jobs), "/bin/true"], TIMEOUT_S, None),
            }
            for tool in tools:
                st = results[shape, n, tool] = Stat(f"{shape} {n} {tool}")
                st.skipped = tool == "task" and task_timed_out
            for rep in range(repeat):
                log(f"{shape} {n}: run {rep + 1}/{repeat}")
                for tool in tools:
                    argv, timeout, before = cmds[tool]
                    results[shape, n, tool].run(argv, timeout, env, *io(tool, shape, n), before=before)
            task_timed_out |= "task" in tools and results[shape, n, "task"].timeout is not None

    # ---- flowrun alone: the human live view under a pty, and the engine without actions ----
    extras = {}  # label -> Stat
    if flowrun:
        flow, _ = generate(TARGET_SHAPE, TARGET_N)
        plain = extras["plain"] = Stat(f"{TARGET_SHAPE} {TARGET_N} flowrun --events plain (next to human)")
        human = extras["human"] = Stat(f"{TARGET_SHAPE} {TARGET_N} flowrun --events human (pty)")
        for rep in range(repeat):
            log(f"live view, {TARGET_SHAPE} {TARGET_N}: run {rep + 1}/{repeat}")
            plain.run([flowrun, "run", "-j", str(JOBS), "--events", "plain", flow], TIMEOUT_S, env,
                      *io("flowrun-plain", TARGET_SHAPE, TARGET_N))
            human.run([flowrun, "run", "-j", str(JOBS), "--events", "human", flow], TIMEOUT_S, env,
                      *io("flowrun-human", TARGET_SHAPE, TARGET_N), pty=True)
        for n in ENGINE_SIZES:
            log(f"engine only, dag {n}: generating")
            flow, _ = generate("dag", n)
            st = extras[f"engine-{n}"] = Stat(f"dag {n} flowrun --engine-only")
            for rep in range(repeat):
                out, err = io("flowrun-engine", "dag", n)
                st.run([flowrun, "run", "--engine-only", "-j", str(JOBS), "--events", "jsonl", flow], TIMEOUT_S, env,
                       out, err)
                # The engine's own time, without start-up, loading and planning: the duration_ms
                # of workflow.finished, the stream's last line.
                last = Path(out).read_bytes().rstrip().rsplit(b"\n", 1)[-1]
                try:
                    st.engine_ms.append(json.loads(last)["duration_ms"])
                except (ValueError, KeyError):
                    pass

    # ---- report ----
    print(f"run benchmark: -j{JOBS}, repeat {repeat} (median wall, max peak RSS; 1 MB = 10^6 bytes), "
          f"{os.cpu_count()} CPUs, load average {load_before[0]:.2f} before, {os.getloadavg()[0]:.2f} after")
    if flowrun:
        print(f"  flowrun: {flowrun}")
    if "make" in tools:
        print(f"  make:    {version(['make', '--version'])}")
    if ninja:
        print(f"  ninja:   {ninja} {version([ninja, '--version'])}")
    if task:
        print(f"  go-task: {task} {version([task, '--version'])}")
    if floor:
        print(f"  floor:   {floor} (posix_spawn /bin/true, {JOBS} at a time; 1 at a time for chain)")
    if swift_subprocess:
        print(f"  subprocess: {swift_subprocess} (swift-subprocess 1.0.2 runs /bin/true, own process group, "
              f"stdout and stderr collected; in flight as the floor)")
    rss_floor = launch(["true"], 10).rss
    print(f"  RSS floor of the launcher, as `true` shows it: {rss_floor:.1f} MB; "
          f"stdout and stderr of the last run of each command: {RUN_DIR}\n")

    row = "{:<12} {:>6}  {:<10} {:>9} {:>12} {:>8} {:>8}  {}"
    print(row.format("shape", "N", "tool", "wall s", "peak RSS MB", "x floor", "x make", ""))
    failures = []

    def status(st):
        if st.skipped:
            return "skipped (timed out at a smaller N)"
        if st.timeout is not None:
            return f"<<< TIMEOUT (> {st.timeout:g} s) >>>"
        if st.code:
            return f"<<< FAILED: {exit_text(st.code)} >>>"
        return ""

    for (shape, n, tool), st in results.items():
        fl, mk = results.get((shape, n, "floor")), results.get((shape, n, "make"))
        note = status(st)
        if st.code or (st.timeout is not None and tool != "task"):
            failures.append((st, shape, n, tool))
        print(row.format(shape, n, tool, fmt(st.wall, ".3f"), fmt(st.peak, ".1f"),
                         fmt(ratio(st, fl), ".2f"), fmt(ratio(st, mk), ".2f"), note))

    if extras:
        print("\nflowrun alone")
        row2 = "{:<52} {:>9} {:>12}  {}"
        print(row2.format("command", "wall s", "peak RSS MB", ""))
        for key, st in extras.items():
            note = status(st)
            if key == "human" and st.walls:
                note = (note + f" {st.pty_bytes / 1e3:.0f} kB written to the pty").strip()
            if st.code or st.timeout is not None:
                failures.append((st, None, None, key))
            print(row2.format(st.label, fmt(st.wall, ".3f"), fmt(st.peak, ".1f"), note))

    for st, shape, n, tool in failures:
        what = f"timed out after {st.timeout:g} s" if st.timeout is not None else exit_text(st.code)
        print(f"\n{st.label}: {what}; its stderr begins:" if st.code else f"\n{st.label}: {what}")
        for line in st.fail_head:
            print("    " + line)

    # ---- targets ----
    def verdict(ok):
        return "PASS" if ok else "MISS"

    print("\ntargets")
    fr = results.get((TARGET_SHAPE, TARGET_N, "flowrun"))
    mk = results.get((TARGET_SHAPE, TARGET_N, "make"))
    fl = results.get((TARGET_SHAPE, TARGET_N, "floor"))
    name = f"{TARGET_N} `true` tasks, random DAG, -j{JOBS}, --events plain to a file"
    if fr is None:
        print(f"  (a) {name}: n/a (needs --tools flowrun, --shapes {TARGET_SHAPE}, --sizes {TARGET_N})")
    elif not fr.ok:
        print(f"  (a) {name}: MISS (flowrun {status(fr)})")
    else:
        parts = []
        r = ratio(fr, mk)
        parts.append("vs make: n/a (needs --tools make, exit 0)" if r is None else
                     f"flowrun {fr.wall:.3f} s vs make {mk.wall:.3f} s (<= make) {verdict(fr.wall <= mk.wall)}")
        r = ratio(fr, fl)
        parts.append("vs floor: n/a (needs --tools floor, exit 0)" if r is None else
                     f"{fr.wall:.3f}/{fl.wall:.3f} = {r:.2f}x floor (<= {TARGET_FLOOR_RATIO:g}x) "
                     f"{verdict(r <= TARGET_FLOOR_RATIO)}")
        parts.append(f"peak RSS {fr.peak:.1f} MB (< {TARGET_RSS_MB:g} MB) {verdict(fr.peak < TARGET_RSS_MB)}")
        print(f"  (a) {name}:\n        " + ";\n        ".join(parts))

    name = f"human live view under a pty, {TARGET_SHAPE}-{TARGET_N}"
    if not extras:
        print(f"  (b) {name}: n/a (needs --tools flowrun)")
    else:
        plain, human = extras["plain"], extras["human"]
        r = ratio(human, plain)
        if r is None:
            print(f"  (b) {name}: MISS (plain {status(plain) or 'ok'}, human {status(human) or 'ok'})")
        else:
            print(f"  (b) {name}: {human.wall:.3f}/{plain.wall:.3f} s = {r:.2f}x the plain run "
                  f"(<= {TARGET_HUMAN_RATIO:g}x) {verdict(r <= TARGET_HUMAN_RATIO)}")

    big_n, base_n = ENGINE_SIZES[-1], ENGINE_SIZES[0]
    name = "engine alone (--engine-only), random DAG"
    if not extras:
        print(f"  (c) {name}: n/a (needs --tools flowrun)")
    else:
        big, base = extras[f"engine-{big_n}"], extras[f"engine-{base_n}"]
        if not big.ok:
            print(f"  (c) {name} {big_n}: MISS ({status(big)})")
        else:
            print(f"  (c) {name} {big_n}: wall {big.wall:.3f} s (< {ENGINE_WALL_S:g} s) "
                  f"{verdict(big.wall < ENGINE_WALL_S)}; peak RSS {big.peak:.1f} MB (< {ENGINE_RSS_MB:g} MB) "
                  f"{verdict(big.peak < ENGINE_RSS_MB)}")
            if big.engine_ms:
                own = statistics.median(big.engine_ms) / 1000
                print(f"      the engine's own time (workflow.finished duration_ms; the wall above adds start-up, "
                      f"loading and planning): {own:.3f} s (< {ENGINE_WALL_S:g} s) {verdict(own < ENGINE_WALL_S)}")
        r = ratio(big, base)
        if r is None:
            print(f"      time({big_n})/time({base_n}): MISS (a run failed)")
        else:
            print(f"      time({big_n})/time({base_n}): {big.wall:.3f}/{base.wall:.3f} = {r:.1f}x "
                  f"(<= {ENGINE_RATIO:g}x) {verdict(r <= ENGINE_RATIO)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
