#!/usr/bin/env python3
"""Fault injection against the real flowrun binary: process hygiene and interrupted work.

Usage:
  python3 scripts/faultpeer.py [--flowrun .build/debug/flowrun] [--trials 40] [--seed N]
                               [--faults int,int2,term,hup,kill9,pkill9,pkillf,stopcont,closeout]
                               [--make] [--keep]

Each trial writes a workflow of generated tasks (shell tasks that spawn children and
grandchildren, daemonize with setsid, ignore SIGTERM/SIGINT, clean up slowly in a trap, hold
stdout open after the shell exits, write their outputs slowly; a download from a slow server on
127.0.0.1; a decompress of a large archive; a combine), starts flowrun as a process group leader
(with a pseudo-terminal or with pipes), and at a random moment delivers one fault. It then checks:
- no process carrying the trial's marker (FAULTPEER_MARK in the environment) is left;
- the exit status and the final events the contract gives for that fault;
- nothing partial at a download/decompress/combine destination (none, the old file, or whole);
- no `.*.flowrun-*` temporary left after a cancel (after a SIGKILL they may stay: the next run
  sweeps them), and none after the next run;
- the next run (no fault) exits 0, reruns every shell task the fault interrupted (never counts
  it up to date) and leaves every destination whole and verified.
With --make, the same shell tasks run under `make -j2` with the same fault, and its exit status
is printed beside flowrun's. Timing is random on purpose (this is a harness, not a test): a
finding is reproduced with --seed and the trial's number, then pinned down in Tests/FlowrunTests
with files as go signals. The name-matching faults (pkill9, pkillf) match only processes that
carry the trial's marker, so that other flowruns on the machine are never touched.
"""

import argparse
import hashlib
import http.server
import io
import json
import os
import pty
import random
import select
import signal
import socketserver
import subprocess
import sys
import tarfile
import tempfile
import threading
import time

FAULTS = ["int", "int2", "term", "hup", "kill9", "pkill9", "pkillf", "stopcont", "closeout", "ghcancel", "killgroup"]
EXPECTED = {"int": 130, "int2": 130, "term": 143, "hup": 129, "kill9": -9, "pkill9": -9,
            "pkillf": -9, "closeout": 141, "ghcancel": -9, "killgroup": -9}
DOWNLOAD_SIZE = 3 * 1024 * 1024

# Shell task bodies. `$SLOW` is "1" on the faulted run and "0" on the next one, read from a
# file beside the workflow (not an input, so the task's definition does not change).
SHELL_TASKS = {
    "children": "sleep 30 & (sleep 30 & sleep 30 & wait) & s=$(cat speed); [ $s = 1 ] && sleep 3; true",
    "setsid_daemon": "setsid sh -c 'sleep 40' </dev/null >/dev/null 2>&1 & s=$(cat speed); [ $s = 1 ] && sleep 2; true",
    "double_fork": "(setsid sh -c 'sleep 40' </dev/null >/dev/null 2>&1 &) ; s=$(cat speed); [ $s = 1 ] && sleep 2; true",
    "double_fork_quick": "(setsid sleep 40 </dev/null >/dev/null 2>&1 &) ; true",
    "ignore_term": "trap '' TERM INT HUP; s=$(cat speed); [ $s = 1 ] && sleep 4; true",
    "slow_trap": "mkdir -p out; trap 'sleep 0.4; rm -f out/trap.tmp; exit 3' TERM INT HUP; touch out/trap.tmp; s=$(cat speed); [ $s = 1 ] && { sleep 3 & wait; }; rm -f out/trap.tmp",
    "hold_stdout": "setsid sleep 30 & echo started",
    "slow_writer": "mkdir -p out; : > out/slow.txt; for i in $(seq 1 40); do echo line-$i >> out/slow.txt; [ $(cat speed) = 1 ] && sleep 0.05; done; true",
}
SHELL_OUTPUTS = {"slow_writer": ["out/slow.txt"]}


class SlowHandler(http.server.BaseHTTPRequestHandler):
    body = b""
    etag = '"faultpeer-1"'

    def log_message(self, *args):
        pass

    def do_GET(self):
        start = 0
        rng = self.headers.get("Range")
        if rng and rng.startswith("bytes=") and self.headers.get("If-Range") in (None, self.etag):
            start = int(rng[6:].split("-")[0])
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(self.body) - 1}/{len(self.body)}")
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(len(self.body) - start))
        self.send_header("ETag", self.etag)
        self.end_headers()
        slow = os.path.exists(os.path.join(self.server.trial_root, "slow-server"))
        try:
            for offset in range(start, len(self.body), 65536):
                self.wfile.write(self.body[offset:offset + 65536])
                if slow:
                    time.sleep(0.03)
        except (BrokenPipeError, ConnectionResetError):
            pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def marked_pids(marker):
    """Every process whose environment or command line holds the marker, with its name."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                env = f.read()
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmd = f.read()
            with open(f"/proc/{name}/comm") as f:
                comm = f.read().strip()
            with open(f"/proc/{name}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state == "Z":
            continue
        if marker.encode() in env or marker.encode() in cmd:
            found.append((int(name), comm, cmd.replace(b"\0", b" ").decode(errors="replace")[:80]))
    return found


def make_archive(cache):
    path = os.path.join(cache, "big.tar.gz")
    if os.path.exists(path):
        return path
    rnd = random.Random(7)
    with tarfile.open(path + ".tmp", "w:gz", compresslevel=1) as tar:
        for i in range(600):
            data = rnd.randbytes(48 * 1024)
            info = tarfile.TarInfo(f"big/f{i:04d}.bin")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    os.rename(path + ".tmp", path)
    return path


def write_workflow(root, rng, port, archive, sha):
    tasks = {}
    names = rng.sample(sorted(SHELL_TASKS), rng.randint(2, 5))
    lines = ["version: 1", "name: faultpeer", "concurrency: 8", "tasks:"]
    for name in names:
        lines.append(f"  {name}:")
        lines.append(f"    shell: {json.dumps(SHELL_TASKS[name])}")
        if name in SHELL_OUTPUTS:
            lines.append(f"    outputs: {json.dumps(SHELL_OUTPUTS[name])}")
        tasks[name] = "shell"
    if rng.random() < 0.6:
        lines += ["  fetch:", "    download:", f"      url: http://127.0.0.1:{port}/big.bin",
                  "      to: out/dl/big.bin", f"      sha256: {sha}", "    retries: 1"]
        tasks["fetch"] = "download"
    if rng.random() < 0.5:
        lines += ["  unpack:", f"    decompress: {{from: {archive}, to: out/unpacked}}"]
        tasks["unpack"] = "decompress"
    if rng.random() < 0.5:
        lines += ["  pack:", "    combine: {inputs: [\"src/*.bin\"], to: out/packed.tar.gz, format: tar.gz}"]
        tasks["pack"] = "combine"
    with open(os.path.join(root, "flow.yaml"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return tasks


def write_makefile(root, tasks):
    shell = [t for t, k in tasks.items() if k == "shell"]
    lines = ["all: " + " ".join(shell)]
    for t in shell:
        body = SHELL_TASKS[t].replace("$", "$$")
        lines += [f".PHONY: {t}", f"{t}:", f"\t@{body}"]
    with open(os.path.join(root, "Makefile"), "w") as f:
        f.write("\n".join(lines) + "\n")


def start(cmd, root, env, use_pty):
    """flowrun (or make) as the leader of a process group and session, as a job control shell
    starts a job: with a pseudo-terminal as its controlling terminal, or with pipes."""
    if use_pty:
        master, slave = pty.openpty()

        def setup():
            os.setsid()
            import fcntl
            import termios
            fcntl.ioctl(slave, termios.TIOCSCTTY, 0)

        proc = subprocess.Popen(cmd, cwd=root, env=env, stdin=slave, stdout=slave, stderr=slave,
                                preexec_fn=setup, close_fds=True)
        os.close(slave)
        return proc, master
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    return proc, proc.stdout.fileno()


class Drain(threading.Thread):
    """Reads the run's terminal or pipe until told to stop (the closeout fault stops reading
    and closes it)."""

    def __init__(self, fd):
        super().__init__(daemon=True)
        self.fd, self.stop, self.data = fd, False, bytearray()

    def run(self):
        while not self.stop:
            r, _, _ = select.select([self.fd], [], [], 0.05)
            if self.stop:
                return
            if r:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    return
                if not chunk:
                    return
                self.data += chunk


def deliver(fault, proc, marker, rng, drain, fd, use_pty):
    pid = proc.pid
    if fault == "int":
        os.killpg(pid, signal.SIGINT)
    elif fault == "int2":
        os.killpg(pid, signal.SIGINT)
        time.sleep(rng.uniform(0, 0.5))
        os.killpg(pid, signal.SIGINT)
    elif fault == "term":
        os.kill(pid, signal.SIGTERM)
    elif fault == "hup":
        if use_pty:
            drain.stop = True
            drain.join()
            os.close(fd)  # the terminal closed: the kernel hangs up the session
        else:
            os.kill(pid, signal.SIGHUP)
    elif fault == "kill9":
        os.kill(pid, signal.SIGKILL)
    elif fault in ("pkill9", "pkillf"):
        # pkill -9 flowrun (name, 15 characters of comm) or pkill -9 -f flowrun (command line),
        # limited to this trial's processes
        for p, comm, cmd in marked_pids(marker):
            if (fault == "pkill9" and "flowrun" in comm) or (fault == "pkillf" and "flowrun" in cmd):
                try:
                    os.kill(p, signal.SIGKILL)
                except ProcessLookupError:
                    pass
    elif fault == "ghcancel":
        # the GitHub Actions runner's cancel, shortened: SIGINT, then SIGTERM, then SIGKILL
        os.kill(pid, signal.SIGINT)
        time.sleep(rng.uniform(0, 0.6))
        os.kill(pid, signal.SIGTERM)
        time.sleep(rng.uniform(0, 0.6))
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    elif fault == "killgroup":
        os.killpg(pid, signal.SIGKILL)  # kill -9 -PGID: the job, flowrun's group
    elif fault == "stopcont":
        os.killpg(pid, signal.SIGSTOP)
        time.sleep(rng.uniform(0.1, 1.0))
        os.killpg(pid, signal.SIGCONT)
    elif fault == "closeout":
        drain.stop = True
        drain.join()
        os.close(fd)


def final_events(path):
    events = []
    try:
        with open(path) as f:
            for line in f:
                try:
                    events.append(json.loads(line))
                except ValueError:
                    events.append({"event": "BROKEN", "line": line})
    except OSError:
        pass
    return events


def temporaries(root):
    found = []
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, "out")):
        for n in dirnames + filenames:
            if n.startswith(".") and ".flowrun-" in n:
                found.append(os.path.relpath(os.path.join(dirpath, n), root))
    return found


def check_destinations(root, tasks, body_sha, archive_names, old):
    problems = []
    if "fetch" in tasks:
        p = os.path.join(root, "out/dl/big.bin")
        if os.path.exists(p):
            digest = hashlib.sha256(open(p, "rb").read()).hexdigest()
            if digest != body_sha and digest != old.get("fetch"):
                problems.append(f"out/dl/big.bin partial ({os.path.getsize(p)} bytes)")
    if "unpack" in tasks:
        p = os.path.join(root, "out/unpacked")
        if os.path.exists(p):
            got = sorted(os.listdir(os.path.join(p, "big"))) if os.path.isdir(os.path.join(p, "big")) else []
            if "unpack" in old:  # merged into an old tree: all old or all new, the extra file kept
                if "extra.txt" not in got:
                    problems.append("out/unpacked lost the file the archive does not have")
                got = [n for n in got if n != "extra.txt"]
            sizes = {os.path.getsize(os.path.join(p, "big", n)) for n in got}
            if got != archive_names or (sizes != {48 * 1024} and sizes != {old.get("unpack")}):
                problems.append(f"out/unpacked partial ({len(got)} of {len(archive_names)} files, sizes {sorted(sizes)[:3]})")
    if "pack" in tasks:
        p = os.path.join(root, "out/packed.tar.gz")
        if os.path.exists(p):
            try:
                with tarfile.open(p) as t:
                    if len(t.getnames()) != 20:
                        problems.append(f"out/packed.tar.gz holds {len(t.getnames())} of 20")
            except Exception as e:
                problems.append(f"out/packed.tar.gz unreadable: {e}")
    return problems


def run_trial(n, args, rng, server, archive, archive_names, body_sha, binary):
    port = server.server_address[1]
    fault = rng.choice(args.faults)
    use_pty = rng.random() < 0.5 and fault != "closeout"  # closing a terminal is a hang-up (hup)
    root = tempfile.mkdtemp(prefix=f"faultpeer-{n}-", dir=args.workdir)
    marker = f"FAULTPEER_{os.getpid()}_{n}_{rng.randrange(1 << 30)}"
    os.makedirs(os.path.join(root, "src"))
    for i in range(20):
        with open(os.path.join(root, "src", f"s{i:02d}.bin"), "wb") as f:
            f.write(rng.randbytes(256 * 1024))
    with open(os.path.join(root, "speed"), "w") as f:
        f.write("1\n")
    open(os.path.join(root, "slow-server"), "w").close()
    tasks = write_workflow(root, rng, port, archive, body_sha)
    old = {}
    if "fetch" in tasks and rng.random() < 0.4:  # an old file at `to` that must survive or be replaced whole
        os.makedirs(os.path.join(root, "out/dl"), exist_ok=True)
        data = b"old contents\n"
        open(os.path.join(root, "out/dl/big.bin"), "wb").write(data)
        old["fetch"] = hashlib.sha256(data).hexdigest()
    if "unpack" in tasks and rng.random() < 0.4:  # an old tree at `to`, merged into
        os.makedirs(os.path.join(root, "out/unpacked/big"))
        for name in archive_names:
            open(os.path.join(root, "out/unpacked/big", name), "wb").write(b"old file\n")
        open(os.path.join(root, "out/unpacked/big/extra.txt"), "w").write("kept\n")
        old["unpack"] = 9
    env = dict(os.environ, FAULTPEER_MARK=marker, NO_COLOR="1")
    env.pop("CI", None)
    env.pop("GITHUB_ACTIONS", None)
    server.trial_root = root  # the server reads `slow-server` in the current trial's folder
    cmd = [binary, "run", "flow.yaml", "--grace", "1", "--events-file", "events.jsonl"]
    delay = rng.uniform(0.0, 0.2) if rng.random() < 0.2 else rng.uniform(0.05, 3.5)  # start-up too
    findings = []
    proc, fd = start(cmd, root, env, use_pty)
    drain = Drain(fd)
    drain.start()
    time.sleep(delay)
    before = proc.poll()
    if before is None:
        deliver(fault, proc, marker, rng, drain, fd, use_pty)
    try:
        status = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        findings.append("flowrun still running 30 s after the fault")
        os.killpg(proc.pid, signal.SIGKILL)
        status = proc.wait()
    drain.stop = True
    # leftovers: a SIGKILLed flowrun's watchdog acts within 50 ms; the grace is 1 s
    left = marked_pids(marker)
    deadline = time.time() + 3
    while left and time.time() < deadline:
        time.sleep(0.1)
        left = marked_pids(marker)
    if left:
        findings.append("left running: " + "; ".join(f"{p} {c} [{cmd}]" for p, c, cmd in left))
        for p, _, _ in left:
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass
    if before is not None:
        expected = {0}
    elif fault == "stopcont":
        expected = {0, 1}
    elif fault == "ghcancel":
        expected = {130, -9, 0}  # 0: the run ended between the poll and the SIGINT (as for int)
    else:
        expected = {EXPECTED[fault]}
        if fault in ("int", "int2", "term", "hup", "closeout"):
            expected.add(0)  # the run may have ended between the poll and the signal
    events = final_events(os.path.join(root, "events.jsonl"))
    before_run = not any(e.get("event") == "workflow.started" for e in events)
    if before_run and fault == "ghcancel":
        expected |= {-2, -15}
    if before_run and fault in ("int", "int2", "term", "hup"):
        # before the run flowrun exits at once (semantics.md); before main, the signal's
        # default action ends it: a shell shows 128 + the signal either way
        expected.add(128 - EXPECTED[fault])
    if status not in expected:
        findings.append(f"exit {status}, expected {sorted(expected)}")
    if status != -9 and not (before_run and status in expected and status != 0):
        started = {e["task"] for e in events if e.get("event") == "task.started"}
        finals = [e["task"] for e in events if e.get("event") in ("task.succeeded", "task.failed", "task.cancelled", "task.skipped")]
        for t in tasks:
            if finals.count(t) != 1:
                findings.append(f"task {t}: {finals.count(t)} final events")
        if not any(e.get("event") == "workflow.finished" for e in events):
            findings.append("no workflow.finished")
        if any(e.get("event") == "BROKEN" for e in events):
            findings.append("events file has a broken line")
    interrupted_shell = set()
    succeeded = {e["task"] for e in events if e.get("event") == "task.succeeded"}
    for t, kind in tasks.items():
        if kind == "shell" and t not in succeeded:
            interrupted_shell.add(t)
    findings += check_destinations(root, tasks, body_sha, archive_names, old)
    temps = temporaries(root)
    if temps and status != -9:
        findings.append("temporaries left after a cancel: " + ", ".join(temps))
    # the next run, fast and without a fault
    with open(os.path.join(root, "speed"), "w") as f:
        f.write("0\n")
    os.unlink(os.path.join(root, "slow-server"))
    if os.path.exists(os.path.join(root, "events.jsonl")):
        os.replace(os.path.join(root, "events.jsonl"), os.path.join(root, "events-1.jsonl"))
    second = subprocess.run(cmd, cwd=root, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, timeout=60, start_new_session=True)
    if second.returncode != 0:
        findings.append(f"next run exit {second.returncode}: {second.stdout.decode(errors='replace')[-400:]}")
    events2 = final_events(os.path.join(root, "events.jsonl"))
    skipped = {e["task"] for e in events2 if e.get("event") == "task.skipped"}
    for t in interrupted_shell & set(SHELL_OUTPUTS):
        if t in skipped:
            findings.append(f"next run counted interrupted task {t} up to date")
    if "slow_writer" in tasks:
        p = os.path.join(root, "out/slow.txt")
        if not os.path.exists(p) or len(open(p).read().splitlines()) != 40:
            findings.append("next run: out/slow.txt not whole")
    if "fetch" in tasks:
        p = os.path.join(root, "out/dl/big.bin")
        if not os.path.exists(p) or hashlib.sha256(open(p, "rb").read()).hexdigest() != body_sha:
            findings.append("next run: download not whole")
    after = {"unpack": 48 * 1024} if "unpack" in old else {}
    findings += [f"next run: {x}" for x in check_destinations(root, tasks, body_sha, archive_names, after)]
    temps2 = temporaries(root)
    if temps2:
        findings.append("temporaries left after the next run: " + ", ".join(temps2))
    time.sleep(0.2)
    left2 = marked_pids(marker)
    if left2:
        findings.append("next run left running: " + "; ".join(f"{p} {c}" for p, c, _ in left2))
        for p, _, _ in left2:
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass
    make_status = None
    if args.make and fault in ("int", "int2", "term", "hup", "kill9", "ghcancel", "killgroup") and any(k == "shell" for k in tasks.values()):
        make_status = run_make(root, tasks, fault, delay, env, use_pty, rng, marker)
    if not args.keep and not findings:
        subprocess.run(["rm", "-rf", root])
    return {"trial": n, "fault": fault, "pty": use_pty, "delay": round(delay, 2), "tasks": sorted(tasks),
            "status": status, "ended_before_fault": before is not None, "make_status": make_status,
            "findings": findings, "root": root}


def run_make(root, tasks, fault, delay, env, use_pty, rng, marker):
    write_makefile(root, tasks)
    with open(os.path.join(root, "speed"), "w") as f:
        f.write("1\n")
    proc, fd = start(["make", "-j2", "-k"], root, env, use_pty)
    drain = Drain(fd)
    drain.start()
    time.sleep(delay)
    if proc.poll() is None:
        deliver(fault, proc, marker, rng, drain, fd, use_pty)
    try:
        status = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        status = "hung"
    drain.stop = True
    left = marked_pids(marker)
    for p, _, _ in left:
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return f"{status} ({len(left)} left)"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flowrun", default=".build/debug/flowrun")
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--faults", default=",".join(FAULTS))
    parser.add_argument("--only-trial", type=int, default=None)
    parser.add_argument("--make", action="store_true")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--workdir", default=None)
    args = parser.parse_args()
    args.faults = args.faults.split(",")
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    print(f"seed {seed}", flush=True)
    binary = os.path.abspath(args.flowrun)
    cache = os.path.join(tempfile.gettempdir(), "faultpeer-cache")
    os.makedirs(cache, exist_ok=True)
    archive = make_archive(cache)
    with tarfile.open(archive) as t:
        archive_names = sorted(os.path.basename(n) for n in t.getnames() if n.endswith(".bin"))
    body = random.Random(11).randbytes(DOWNLOAD_SIZE)
    body_sha = hashlib.sha256(body).hexdigest()
    SlowHandler.body = body
    server = Server(("127.0.0.1", 0), SlowHandler)
    server.trial_root = "/nonexistent"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    results = []
    for n in range(args.trials):
        rng = random.Random(seed * 1000 + n)
        if args.only_trial is not None and n != args.only_trial:
            continue
        result = run_trial(n, args, rng, server, archive, archive_names, body_sha, binary)
        results.append(result)
        mark = "FOUND" if result["findings"] else "ok"
        print(f"#{n} {mark} fault={result['fault']} pty={result['pty']} t={result['delay']} "
              f"tasks={','.join(result['tasks'])} status={result['status']}"
              f"{' (ended before)' if result['ended_before_fault'] else ''}"
              f"{' make=' + str(result['make_status']) if result['make_status'] else ''}", flush=True)
        for f in result["findings"]:
            print(f"    {f}", flush=True)
        if result["findings"]:
            print(f"    kept: {result['root']}", flush=True)
    found = [r for r in results if r["findings"]]
    print(f"{len(results)} trials, {len(found)} with findings")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
