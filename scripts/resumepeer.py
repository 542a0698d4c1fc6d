#!/usr/bin/env python3
"""flowrun's `run --resume` (README "Resume") against a model, over generated workflows and
generated histories of runs, kills and edits.

Each case: a random DAG of 5-40 shell tasks (inputs and globs with outputs, tasks with neither,
a matrix task, needs across two queues, `when: always` cleanup tasks, continue_on_error, a group
task), whose tasks fail or succeed by control files (ctl/fail.ID) the harness flips between
steps. Then a history of 3-8 steps, each one of: a run (plain, with TASK arguments, with
--keep-going, `--only TASK`), a run killed by SIGINT or SIGKILL once a chosen task has started (the task
creates .go/ID and waits while .hold/ID exists), an edit (a script, an input, an output
deleted or edited, a glob gaining a file, the workflow: a task renamed, removed or added, a need
added), `--resume`, `--resume RUN` (or `--resume-from RUN`) of an older run. Every run is at
-j 1, so that which tasks end before a kill or a failure does not depend on timing; a SIGKILL is
sent once the task's start is in the run's record (written in batches, README "Run records"),
and every `--resume` is previewed by `--resume --dry-run` first.

The model (README's rules: "Skipping what is up to date", "Resume", the Decisions on fail-fast
and cancel) says after each step which tasks ran, each task's end (succeeded, failed, allowed,
skipped, cancelled, up-to-date, done-before, unfinished), the exit status and the dry-run's
verdict per task (kept: done / up to date; would run: ended so in RUN / not in RUN / a need
runs / changed). Checked beside it:
- WRONG-GREEN: a task flowrun keeps (done-before, up-to-date) whose outputs are not what
  running it now would write;
- TWICE: a task that ran twice in one run;
- RECORD: `flowrun runs --json` does not list each recorded run, or a run killed by SIGKILL has
  no readable record (`flowrun logs RUN`);
- DRYRUN: `--resume --dry-run`'s verdict per task against the model's (a need that would run
  counts with its outputs as the state kept them, as README says the preview takes them).
Where flowrun and the model part, the model's tree follows flowrun's files, so that one
difference is told once. A case with differences keeps its folder (dryrun-stepN.txt holds the
preview that differed).

  python3 scripts/resumepeer.py --flowrun .build/release/flowrun --cases 30 --seed 1
"""
import argparse
import collections
import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time


def h(*parts):
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


def write(path, text):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except (FileNotFoundError, IsADirectoryError):
        return None


SUCCESS = ("succeeded", "allowed", "up-to-date", "done-before")


class Task:
    def __init__(self, tid, kind):
        self.tid = tid
        self.kind = kind          # build (inputs -> outputs), plain (neither), group
        self.inputs = []          # src/f1.txt, src/g-*.txt, out/t2.txt
        self.needs = []
        self.salt = 0
        self.matrix = None
        self.when = None          # None or "always"
        self.coe = False
        self.queue = None

    def combos(self):
        if self.matrix:
            return [(f"{self.tid}[{v}]", v) for v in self.matrix]
        return [(self.tid, None)]

    def outputs(self, v=None):
        if self.kind != "build":
            return []
        return [f"out/{self.tid}{'-' + v if v else ''}.txt"]

    def tracked(self):
        return bool(self.inputs) or self.kind == "build"


class Spec:
    def __init__(self, rng):
        self.rng = rng
        self.tasks = []
        self.src = [f"src/f{i}.txt" for i in range(rng.randint(2, 5))]
        self.counter = 100
        n = rng.randint(5, 40)
        for i in range(n):
            self.tasks.append(self.new_task(f"t{i}"))
        # one matrix task, a cleanup task or two, a group
        read_ = {p for t in self.tasks for p in t.inputs}
        builds = [t for t in self.tasks if t.kind == "build" and not t.coe and t.outputs()[0] not in read_]
        if builds:
            rng.choice(builds).matrix = ["a", "b"]
        for _ in range(rng.randint(1, 2)):
            c = Task(f"clean{len(self.tasks)}", "plain")
            c.when = "always"
            c.salt = rng.randint(0, 10**6)
            c.needs = rng.sample([t.tid for t in self.tasks], min(2, len(self.tasks)))
            self.tasks.append(c)
        g = Task(f"grp{len(self.tasks)}", "group")
        g.needs = rng.sample([t.tid for t in self.tasks if t.when is None], 2)
        self.tasks.append(g)
        if rng.random() < 0.5:
            t = self.new_task(f"after{len(self.tasks)}")
            t.needs = [g.tid]
            self.tasks.append(t)

    def new_task(self, tid):
        rng = self.rng
        kind = rng.choices(["build", "plain"], [3, 2])[0]
        t = Task(tid, kind)
        t.salt = rng.randint(0, 10**6)
        t.queue = rng.choice([None, "q1", "q2"])
        t.coe = rng.random() < 0.08
        if kind == "build":
            for _ in range(rng.randint(0, 2)):
                r = rng.random()
                if r < 0.5:
                    t.inputs.append(rng.choice(self.src))
                elif r < 0.7:
                    t.inputs.append("src/g-*.txt")
                else:
                    ups = [u for u in self.tasks if u.kind == "build" and not u.matrix and u.tid[0] != "r"]
                    if ups:
                        u = rng.choice(ups)
                        t.inputs.append(u.outputs()[0])
                        if u.tid not in t.needs:
                            t.needs.append(u.tid)
            t.inputs = list(dict.fromkeys(t.inputs))
        others = [u.tid for u in self.tasks if u.kind != "group"]
        if others and rng.random() < 0.5:
            n = rng.choice(others)
            if n not in t.needs:
                t.needs.append(n)
        return t

    def by_id(self):
        return {t.tid: t for t in self.tasks}

    def script(self, t):
        cat = " ".join(p for p in t.inputs)
        text = 'echo "$FLOWRUN_TASK" >> .ran; '
        text += ('if [ -e ".hold/$FLOWRUN_TASK" ]; then : > ".go/$FLOWRUN_TASK";'
                 ' while [ -e ".hold/$FLOWRUN_TASK" ]; do sleep 0.01; done; exit 9; fi; ')
        if t.kind == "build":
            out = f"out/{t.tid}" + ("-$MATRIX_K" if t.matrix else "") + ".txt"
            feed = f"{{ echo s{t.salt} \"$MATRIX_K\"; cat {cat}; }}" if cat else f"echo s{t.salt} \"$MATRIX_K\""
            text += f"mkdir -p out && {feed} > {out}; "
        else:
            text += f": s{t.salt}; "
        text += 'test ! -e "ctl/fail.$FLOWRUN_TASK"'
        return text

    def yaml(self):
        text = "version: 1\nqueues:\n  q1: {concurrency: 1}\n  q2: {concurrency: 2}\ntasks:\n"
        for t in self.tasks:
            text += f"  {t.tid}:\n"
            if t.kind != "group":
                text += f"    shell: {json.dumps(self.script(t))}\n"
            if t.matrix:
                text += f"    matrix: {{k: [{', '.join(t.matrix)}]}}\n"
            if t.inputs:
                text += f"    inputs: {json.dumps(t.inputs)}\n"
            if t.kind == "build":
                o = f"out/{t.tid}" + ("-${matrix.k}" if t.matrix else "") + ".txt"
                text += f"    outputs: [{json.dumps(o)}]\n"
            if t.needs:
                text += f"    needs: {json.dumps(t.needs)}\n"
            if t.when:
                text += f"    when: {t.when}\n"
            if t.coe:
                text += "    continue_on_error: true\n"
            if t.queue and t.kind != "group":
                text += f"    queue: {t.queue}\n"
        return text

    def combos(self):
        """Every combination id, in file order, with its task and value."""
        return [(cid, t, v) for t in self.tasks for cid, v in t.combos()]


class Model:
    """README's rules, on a dictionary of files."""

    def __init__(self, spec):
        self.spec = spec
        self.files = {}
        self.uptodate = {}        # cid -> (fp, outputs digest) at its last success
        self.runs = []            # [(run id or None, {cid: (state, key)})]

    def glob(self, pattern):
        if "*" in pattern:
            pre, suf = pattern.split("*")
            return sorted(f for f in self.files if f.startswith(pre) and f.endswith(suf) and "/" not in f[len(pre):])
        return [pattern] if pattern in self.files else []

    def inputs_digest(self, t):
        return h([(p, [(f, self.files[f]) for f in self.glob(p)]) for p in t.inputs])

    def outputs_digest(self, t, v):
        outs = t.outputs(v)
        return h([(o, self.files.get(o)) for o in outs]), all(o in self.files for o in outs)

    def content(self, t, v):
        data = f"s{t.salt} {v or ''}\n"
        for p in t.inputs:
            for f in self.glob(p):
                data += self.files[f]
        return data

    def definition(self, t):
        return h(t.kind, self.spec.script(t) if t.kind != "group" else "", t.inputs, t.when, t.coe, t.matrix)

    def simulate(self, selected=None, keep_going=False, resume=None, kill=None, dry=False, only=None):
        """One run at -j 1. Returns (ran, ends, status, verdicts). `resume`: the record
        {cid: (state, key)} of the run resumed; `kill`: (cid, signal)."""
        spec, by = self.spec, self.spec.by_id()
        combos = spec.combos()
        if selected is not None:
            want, stack = set(), list(selected)
            while stack:
                tid = stack.pop()
                if tid not in want:
                    want.add(tid)
                    stack += by[tid].needs
            combos = [c for c in combos if c[1].tid in want]
        ends, fp, ran, verdicts, record, as_need = {}, {}, [], {}, {}, {}
        if only is not None:
            # README "run --only": exactly TASK; each need is taken as done, refused (exit 2)
            # when it left an output missing; its fingerprint is the state's at its last
            # success when its files are still those, else one no record matches
            t = by[only]
            combos = [c for c in combos if c[1].tid == only]
            for n in t.needs:
                for ncid, nv in by[n].combos():
                    nt = by[n]
                    outs, present = self.outputs_digest(nt, nv)
                    if not present:
                        return [], {}, 2, {}, None
                    kept = self.uptodate.get(ncid)
                    as_need[ncid] = kept if nt.tracked() and kept and kept[1] == outs else ("unrecorded", ncid)
                    ends[ncid] = "succeeded"
        runs_now = set()
        tripped = cancelled = killed = False
        pending = list(combos)
        status = 0
        while pending:
            def ready(c):
                return all(cid in ends for n in c[1].needs for cid, _ in by[n].combos())
            nxt = next((c for c in pending if ready(c)), None)
            if nxt is None:
                break
            pending.remove(nxt)
            cid, t, v = nxt
            needs = [(ncid, by[n]) for n in t.needs for ncid, _ in by[n].combos()]
            need_ends = [ends[n] for n, _ in needs]
            ok = all(e in SUCCESS for e in need_ends)
            if killed:
                # nothing ends after a SIGKILL but what ended before it: a task whose need had
                # failed was skipped at once, and so was every task once fail-fast had tripped
                if t.when != "always" and (tripped or not ok):
                    ends[cid] = "skipped"
                    record[cid] = ("skipped", None)
                continue
            if (tripped or cancelled) and t.when != "always":
                ends[cid] = "skipped"
                record[cid] = ("skipped", None)
                continue
            if t.when != "always" and not ok:
                ends[cid] = "skipped"
                record[cid] = ("skipped", None)
                continue
            parts = []
            for n, nt in needs:
                if n in as_need:
                    parts.append(as_need[n])
                elif ends.get(n) not in SUCCESS:
                    # a need that did not succeed left no record: its dependents' fingerprint
                    # (a cleanup task's) matches none later
                    parts.append(("unrecorded", n))
                else:
                    parts.append((fp.get(n), self.outputs_digest(nt, dict(nt.combos())[n])[0] if nt.tracked() else None))
            f = h(self.definition(t), v, self.inputs_digest(t), sorted(parts, key=repr))
            fp[cid] = f
            outs, present = self.outputs_digest(t, v)
            key = (f, outs) if present else None
            # the up-to-date check first, then the resume
            verdict = None
            if t.tracked() and present and self.uptodate.get(cid) == (f, outs):
                verdict = ("kept", "up-to-date")
            elif resume is not None:
                rec = resume.get(cid)
                need_runs = next((n for n, _ in needs if n in runs_now), None)
                if rec is None:
                    verdict = ("run", "not-in-run")
                elif rec[0] not in SUCCESS[:1] + SUCCESS[2:]:
                    verdict = ("run", rec[0])
                elif rec[1] is None:
                    verdict = ("run", "not-recorded")
                elif need_runs:
                    verdict = ("run", "need-runs")
                elif rec[1] != key:
                    verdict = ("run", "changed")
                else:
                    verdict = ("kept", "done-before")
            if verdict and verdict[0] == "kept":
                ends[cid] = verdict[1]
                record[cid] = ("succeeded", key)
                verdicts[cid] = verdict
                continue
            verdicts[cid] = verdict or ("run", "changed")
            runs_now.add(cid)
            if dry:
                # README: the preview takes a need that would run with its outputs as the state
                # kept them (its fingerprint is today's)
                ends[cid] = "succeeded"
                if t.tracked():
                    as_need[cid] = (f, self.uptodate[cid][1]) if cid in self.uptodate else ("unrecorded", cid)
                continue
            if t.kind == "group":
                ends[cid] = "succeeded"
                record[cid] = ("succeeded", key)
                continue
            ran.append(cid)
            # README: a task that fails, is cancelled or killed runs again next time: its old
            # record is dropped when it starts
            self.uptodate.pop(cid, None)
            if kill and kill[0] == cid:
                if kill[1] == "KILL":
                    record[cid] = ("unfinished", None)
                    killed = True
                    status = -9
                else:
                    ends[cid] = "cancelled"
                    record[cid] = ("cancelled", None)
                    cancelled = True
                    status = 130
                continue
            for o in t.outputs(v):
                self.files[o] = self.content(t, v)
            if self.files.get(f"ctl/fail.{cid}") is not None:
                ends[cid] = "allowed" if t.coe else "failed"
                record[cid] = ("failed", None)
                if not t.coe:
                    if not keep_going:
                        tripped = True
                    if status == 0:
                        status = 1
                continue
            ends[cid] = "succeeded"
            outs, present = self.outputs_digest(t, v)
            key = (f, outs) if present else None
            record[cid] = ("succeeded", key)
            if t.tracked() and present:
                self.uptodate[cid] = (f, outs)
        if only is not None:
            for ncid in list(as_need):
                ends.pop(ncid, None)   # taken as done: no event of theirs
        if cancelled:
            status = 130
        if killed:
            # the record plans every task selected: those that never ended did not finish
            for cid, _, _ in combos:
                record.setdefault(cid, ("unfinished", None))
        return ran, ends, status, verdicts, record


class Case:
    def __init__(self, args, n):
        self.args, self.n = args, n
        self.rng = random.Random(args.seed * 1000003 + n)
        self.spec = Spec(self.rng)
        self.model = Model(self.spec)
        self.root = os.path.abspath(os.path.join(args.work, f"case{n}"))
        shutil.rmtree(self.root, ignore_errors=True)
        os.makedirs(self.root)
        for d in ("ctl", ".hold", ".go", "src"):
            os.makedirs(os.path.join(self.root, d))
        for f in self.spec.src + ["src/g-1.txt"]:
            self.put(f, f"{f} {self.rng.randint(0, 99)}\n")
        self.write_workflow()
        self.diffs = []
        self.steps = 0
        self.recorded = []        # run ids, oldest first

    def put(self, rel, text):
        write(os.path.join(self.root, rel), text)
        if not rel.startswith("ctl/"):
            self.model.files[rel] = text

    def remove(self, rel):
        try:
            os.remove(os.path.join(self.root, rel))
        except FileNotFoundError:
            pass
        self.model.files.pop(rel, None)

    def write_workflow(self):
        write(os.path.join(self.root, "flowrun.yaml"), self.spec.yaml())

    def diff(self, kind, text):
        self.diffs.append((kind, f"case {self.n} step {self.steps}: {text}"))

    def flowrun(self, *extra, timeout=120):
        env = dict(os.environ, FLOWRUN_STATE_DIR=os.path.join(self.root, ".state"))
        env.pop("CI", None)
        env.pop("GITHUB_ACTIONS", None)
        return subprocess.run([self.args.flowrun, *extra], cwd=self.root, env=env, capture_output=True, text=True, timeout=timeout)

    # ---- the control files ------------------------------------------------------------
    def flip(self):
        for cid, _, _ in self.spec.combos():
            path = f"ctl/fail.{cid}"
            on = os.path.exists(os.path.join(self.root, path))
            if on and self.rng.random() < 0.6:
                self.remove(path)
            elif not on and self.rng.random() < 0.06:
                write(os.path.join(self.root, path), "")
                self.model.files[path] = ""

    # ---- one run ------------------------------------------------------------------------
    def run_step(self, label, argv, model_kw, kill=None):
        for f in os.listdir(os.path.join(self.root, ".go")):
            os.remove(os.path.join(self.root, ".go", f))
        open(os.path.join(self.root, ".ran"), "w").close()
        expect = self.model.simulate(kill=kill, **model_kw)
        ran_m, ends_m, status_m, verdicts_m, record_m = expect
        env = dict(os.environ, FLOWRUN_STATE_DIR=os.path.join(self.root, ".state"))
        env.pop("CI", None)
        cmd = [self.args.flowrun, "run", "-j", "1", "--events", "jsonl", *argv]
        if kill:
            hold = os.path.join(self.root, ".hold", kill[0])
            open(hold, "w").close()
            p = subprocess.Popen(cmd, cwd=self.root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            go = os.path.join(self.root, ".go", kill[0])
            deadline = time.time() + 60
            while not os.path.exists(go) and p.poll() is None and time.time() < deadline:
                time.sleep(0.005)
            if kill[1] == "KILL":
                # the record is written in batches, at most 50 ms (README: a quarter of a second
                # when the loop is late) after its events: a kill is taken once the task's start
                # is in it, so that which tasks the record has ended does not depend on timing
                started = f'"event":"task.started","task":{json.dumps(kill[0])}'
                while p.poll() is None and time.time() < deadline and not any(
                        started in (read(os.path.join(d, f)) or "")
                        for d, _, fs in os.walk(os.path.join(self.root, ".state", "runs")) for f in fs
                        if f.endswith(".jsonl") and f[:-6] not in self.recorded):
                    time.sleep(0.005)
            if p.poll() is None:
                p.send_signal(signal.SIGINT if kill[1] == "INT" else signal.SIGKILL)
            out, err = p.communicate(timeout=120)
            status = p.returncode
            os.remove(hold)
            # after a SIGKILL the orphaned task sees its hold gone and exits 9, writing nothing
        else:
            r = subprocess.run(cmd, cwd=self.root, env=env, capture_output=True, text=True, timeout=300)
            out, err, status = r.stdout, r.stderr, r.returncode
        ends = {}
        for line in out.splitlines():
            try:
                e = json.loads(line)
            except ValueError:
                continue
            ev = e.get("event", "")
            if ev == "task.succeeded":
                ends[e["task"]] = "succeeded"
            elif ev == "task.failed":
                ends[e["task"]] = "allowed" if e.get("allowed") else "failed"
            elif ev == "task.cancelled":
                ends[e["task"]] = "cancelled"
            elif ev == "task.skipped":
                r_ = e.get("reason", "")
                ends[e["task"]] = r_ if r_ in ("up-to-date", "done-before") else "skipped"
        ran = [l for l in read(os.path.join(self.root, ".ran")).splitlines() if l]
        counts = collections.Counter(ran)
        twice = [c for c, k in counts.items() if k > 1]
        if twice:
            self.diff("TWICE", f"{label}: ran twice: {twice}")
        if sorted(ran) != sorted(ran_m):
            extra = sorted(set(ran) - set(ran_m))
            missing = sorted(set(ran_m) - set(ran))
            kind = "RAN"
            self.diff(kind, f"{label}: ran {len(ran)} tasks, model {len(ran_m)}; flowrun only: {extra}; model only: {missing}")
        for cid in sorted(set(ends) | set(ends_m)):
            if ends.get(cid) != ends_m.get(cid) and not (cid not in ends_m and kill and kill[1] == "KILL"):
                self.diff("END", f"{label}: {cid} ended {ends.get(cid)}, model {ends_m.get(cid)}")
        want_status = {-9: -9}.get(status_m, status_m)
        if status != want_status:
            self.diff("STATUS", f"{label}: exit {status}, model {status_m}; stderr: {err.strip()[-300:]}")
        # the worst: a task kept whose outputs are not what it would write now
        for cid, t, v in self.spec.combos():
            if ends.get(cid) in ("up-to-date", "done-before"):
                for o in t.outputs(v):
                    now = read(os.path.join(self.root, o))
                    if now != self.model.content(t, v):
                        self.diff("WRONG-GREEN", f"{label}: {cid} kept ({ends[cid]}) but {o} holds {now!r}, not {self.model.content(t, v)!r}")
        # the model's tree follows flowrun's where they parted, so that one difference is told once
        for cid, t, v in self.spec.combos():
            for o in t.outputs(v):
                now = read(os.path.join(self.root, o))
                if now is None:
                    self.model.files.pop(o, None)
                else:
                    self.model.files[o] = now
        # the record: one per run, none for a run refused before it started
        ids = self.run_ids()
        if record_m is None:
            if len(ids) != len(self.recorded):
                self.diff("RECORD", f"{label}: refused, yet flowrun runs lists {len(ids)} runs, {len(self.recorded)} before")
        elif len(ids) != len(self.recorded) + 1:
            self.diff("RECORD", f"{label}: flowrun runs lists {len(ids)} runs, {len(self.recorded) + 1} recorded")
        else:
            new = ids[-1]
            self.recorded.append(new)
            self.model.runs.append((new, record_m))
            if kill and kill[1] == "KILL":
                r = self.flowrun("logs", new, "--events", "jsonl")
                if r.returncode != 0 or not r.stdout:
                    self.diff("RECORD", f"{label}: logs {new} after SIGKILL: exit {r.returncode}: {r.stderr.strip()[:200]}")
        return ends

    def run_ids(self):
        r = self.flowrun("runs", "--json")
        try:
            return sorted(x["id"] for x in json.loads(r.stdout or "[]"))
        except ValueError:
            return []

    def dry_resume(self, label, argv, record):
        """`--resume --dry-run`: the verdict per task against the model's."""
        r = self.flowrun("run", "-j", "1", "--dry-run", *argv)
        _, _, _, verdicts_m, _ = self.model.simulate(resume=record, dry=True)
        text = r.stdout
        got = {}
        section = text.split("(what --resume would keep):", 1)
        if len(section) < 2:
            self.diff("DRYRUN", f"{label}: no resume section (exit {r.returncode}: {r.stderr.strip()[:200]})")
            return
        for line in section[1].splitlines():
            m = re.match(r"  (\S+)\s+(kept|would run): (.*)", line)
            if not m:
                continue
            cid, what, why = m.groups()
            if what == "kept":
                kind = "up-to-date" if "up to date" in why else "done-before"
            elif why.startswith(("failed in", "cancelled in", "skipped in", "did not finish")):
                kind = {"failed": "failed", "cancelled": "cancelled", "skipped": "skipped", "did": "unfinished"}[why.split()[0]]
            elif why.startswith("not part of"):
                kind = "not-in-run"
            elif why.startswith("needs "):
                kind = "need-runs"
            elif why.startswith("what it left"):
                kind = "not-recorded"
            else:
                kind = "changed"
            got[cid] = ("kept" if what == "kept" else "run", kind)
        wrong = False
        for cid in sorted(set(got) | set(verdicts_m)):
            g, m_ = got.get(cid), verdicts_m.get(cid)
            if g != m_:
                wrong = True
                self.diff("DRYRUN", f"{label}: {cid}: dry-run {g}, model {m_}")
        if wrong:
            write(os.path.join(self.root, f"dryrun-step{self.steps}.txt"), text)

    # ---- the history --------------------------------------------------------------------
    def edit(self):
        rng, spec = self.rng, self.spec
        kind = rng.choice(["script", "input", "glob", "delete-output", "edit-output", "rename", "remove", "add", "need"])
        combos = spec.combos()
        if kind == "script":
            t = rng.choice([t for t in spec.tasks if t.kind != "group"])
            t.salt += 1
        elif kind == "input":
            f = rng.choice(spec.src)
            self.put(f, f"{f} {rng.randint(100, 999)}\n")
        elif kind == "glob":
            self.put(f"src/g-{rng.randint(2, 99)}.txt", "more\n")
        elif kind in ("delete-output", "edit-output"):
            outs = [o for _, t, v in combos for o in t.outputs(v) if os.path.exists(os.path.join(self.root, o))]
            if not outs:
                return "nothing"
            o = rng.choice(outs)
            if kind == "delete-output":
                self.remove(o)
            else:
                self.put(o, "edited by hand\n")
        elif kind == "rename":
            t = rng.choice(spec.tasks)
            old, new = t.tid, f"r{spec.counter}"
            spec.counter += 1
            t.tid = new
            for u in spec.tasks:
                u.needs = [new if n == old else n for n in u.needs]
                u.inputs = [p.replace(f"out/{old}.txt", f"out/{new}.txt") for p in u.inputs]
        elif kind == "remove":
            needed = {n for u in spec.tasks for n in u.needs}
            leaves = [t for t in spec.tasks if t.tid not in needed]
            if len(spec.tasks) <= 4 or not leaves:
                return "nothing"
            spec.tasks.remove(rng.choice(leaves))
        elif kind == "add":
            t = spec.new_task(f"n{spec.counter}")
            spec.counter += 1
            spec.tasks.append(t)
        elif kind == "need":
            i = rng.randrange(1, len(spec.tasks))
            t = spec.tasks[i]
            n = rng.choice(spec.tasks[:i])
            if n.tid in t.needs or t.kind == "group":
                return "nothing"
            t.needs.append(n.tid)
        self.write_workflow()
        return kind

    def step(self):
        rng = self.rng
        self.steps += 1
        self.flip()
        has = bool(self.model.runs)
        kind = rng.choices(
            ["run", "run-tasks", "keep-going", "only", "kill-int", "kill-kill", "edit", "resume", "resume-run"],
            [2, 1, 1, 1, 1, 1, 3, 4 if has else 0, 2 if len(self.model.runs) > 1 else 0])[0]
        if kind == "edit":
            return "edit " + self.edit()
        if kind in ("run", "keep-going"):
            self.run_step(kind, ["--keep-going"] if kind == "keep-going" else [], {"keep_going": kind == "keep-going"})
        elif kind == "run-tasks":
            picks = rng.sample([t.tid for t in self.spec.tasks], min(2, len(self.spec.tasks)))
            self.run_step(kind + " " + " ".join(picks), ["flowrun.yaml", *picks], {"selected": picks})
        elif kind == "only":
            fit = [t for t in self.spec.tasks if t.kind != "group" and t.when is None and not t.matrix
                   and all(self.spec.by_id()[n].kind != "group" and not self.spec.by_id()[n].coe
                           and self.spec.by_id()[n].when is None for n in t.needs)]
            if not fit:
                return "only (no task fits)"
            t = rng.choice(fit)
            self.run_step(f"only {t.tid}", ["--only", t.tid, "flowrun.yaml"], {"only": t.tid})
        elif kind.startswith("kill"):
            ran, _, _, _, _ = Model.simulate(self.copy_model())
            if not ran:
                return kind + " (nothing would start)"
            sig = "INT" if kind == "kill-int" else "KILL"
            if sig == "INT":
                # a `when: always` task goes on after Ctrl-C, for --grace seconds: not a target
                always = {c for c, t, _ in self.spec.combos() if t.when == "always"}
                ran = [c for c in ran if c not in always]
                if not ran:
                    return kind + " (nothing would start)"
            cid = rng.choice(ran)
            self.run_step(f"{kind} at {cid}", [], {}, kill=(cid, sig))
        else:
            if kind == "resume":
                run_id, record = self.model.runs[-1]
                argv = ["--resume"]
            else:
                run_id, record = rng.choice(self.model.runs[:-1])
                argv = ["--resume", run_id] if rng.random() < 0.5 else ["--resume-from", run_id]
            self.dry_resume(kind + " --dry-run", argv + ["flowrun.yaml"], record)
            self.run_step(f"{kind} {run_id}", argv + ["flowrun.yaml"], {"resume": record})
        return kind

    def copy_model(self):
        m = Model(self.spec)
        m.files = dict(self.model.files)
        m.uptodate = dict(self.model.uptodate)
        return m


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--flowrun", required=True)
    ap.add_argument("--cases", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--work", default="/tmp/resumepeer")
    ap.add_argument("--only-case", type=int)
    ap.add_argument("--keep", action="store_true", help="keep each case's folder")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    args.flowrun = os.path.abspath(args.flowrun)
    os.makedirs(args.work, exist_ok=True)
    total = collections.Counter()
    steps = 0
    every = []
    for n in range(args.cases):
        if args.only_case is not None and n != args.only_case:
            continue
        case = Case(args, n)
        case.run_step("first run", [], {})
        history = []
        for _ in range(case.rng.randint(3, 8)):
            history.append(case.step())
        steps += case.steps + 1
        for kind, text in case.diffs:
            total[kind] += 1
            every.append(text)
        if args.verbose or case.diffs:
            print(f"case {n}: {len(case.spec.combos())} tasks; " + ", ".join(history) + f": {len(case.diffs)} differences")
        if not args.keep and not case.diffs:
            shutil.rmtree(case.root, ignore_errors=True)
    for text in every:
        print("  " + text)
    print(f"\n{args.cases} cases, {steps} steps; differences: "
          + (", ".join(f"{k} {v}" for k, v in sorted(total.items())) or "none"))
    sys.exit(1 if every else 0)


if __name__ == "__main__":
    main()
