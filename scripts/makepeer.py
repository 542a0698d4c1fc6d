#!/usr/bin/env python3
"""flowrun's up-to-date skip against make, ninja and a content-hash model, over generated
workflows and generated edit sequences.

Each case: a random DAG of 5-40 tasks (literal inputs, globs, folders, outputs feeding other
tasks' inputs, tasks without outputs or without either field, needs, env, a matrix), written
as flowrun.yaml, a Makefile and a build.ninja in three copies of one tree. Then a random
sequence of edits, applied to every copy, each followed by a run of all three tools and of a
model in Python: the rules README.md promises ("Skipping what is up to date"), run on a fourth
copy. After each run:
- flowrun's set of tasks run must be the model's: a task the model runs and flowrun skipped
  is a WRONG GREEN; one flowrun ran and the model skipped is a SPEED bug;
- every file of flowrun's tree (but logs) must be the model's: a difference is a wrong result;
- `--dry-run` must name the tasks the run then runs (told apart: under, over);
- make's and ninja's sets are kept beside it, with the differences the docs explain counted.

  python3 scripts/makepeer.py --flowrun .build/release/flowrun --cases 40 --edits 12 --seed 1
"""
import argparse
import glob
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import time

EDITS = [
    "edit-input", "touch-input", "same-content", "same-content-rename", "delete-output",
    "edit-output", "add-glob-file", "remove-glob-file", "change-command", "change-env",
    "change-global-env", "change-unrelated", "rename-task", "reorder-keys", "add-include",
    "move-folder", "edit-during-run", "stray-in-output-folder", "nothing", "reorder-needs",
]


def h(*parts):
    d = hashlib.sha256()
    for p in parts:
        d.update(repr(p).encode())
        d.update(b"\0")
    return d.hexdigest()


class Task:
    """One task of the spec; a matrix task stands for its combinations."""

    def __init__(self, tid, kind):
        self.tid = tid
        self.name = tid           # for its files' paths: kept when the task is renamed
        self.kind = kind          # build (outputs), multi (folder output), noout, phony
        self.inputs = []          # patterns: src/f1.txt, src/g0-*.txt, out/t2.txt, out/t3/
        self.needs = []
        self.env = {}
        self.salt = 0
        self.matrix = None        # list of values of key k
        self.included = False

    def combos(self):
        if self.matrix:
            return [(f"{self.tid}[{v}]", v) for v in self.matrix]
        return [(self.tid, None)]

    def outputs(self, v=None):
        if self.kind == "build":
            return [f"out/{self.base()}{'-' + v if v else ''}.txt"]
        if self.kind == "multi":
            return [f"out/{self.base()}{'-' + v if v else ''}/"]
        return []

    def base(self):
        return self.name

    def tracked(self):
        return bool(self.inputs) or self.kind in ("build", "multi")


class Spec:
    def __init__(self, rng):
        self.rng = rng
        self.tasks = []
        self.genv = {"G": "g0"}
        self.src = [f"src/f{i}.txt" for i in range(rng.randint(3, 8))]
        self.globs = [f"src/g{i}-" for i in range(rng.randint(1, 3))]
        self.globfiles = {g: [f"{g}{k:03d}.txt" for k in range(rng.randint(1, 3))] for g in self.globs}
        self.counter = 1000
        self.include = set()      # ids of tasks moved to inc.yaml
        self.order_seed = 0
        self.needs_seed = 0       # the order of each needs list (a speed bug of its own)
        n = rng.randint(5, 40)
        for i in range(n):
            kind = rng.choices(["build", "multi", "noout", "phony"], [6, 2, 2, 1])[0]
            t = Task(f"t{i}", kind)
            t.salt = rng.randint(0, 10**6)
            if rng.random() < 0.4:
                t.env = {"V": f"v{rng.randint(0, 99)}"}
            if kind != "phony":
                for _ in range(rng.randint(0 if kind != "noout" else 1, 3)):
                    r = rng.random()
                    if r < 0.4:
                        t.inputs.append(rng.choice(self.src))
                    elif r < 0.6:
                        t.inputs.append(rng.choice(self.globs) + "*.txt")
                    elif self.tasks:
                        up = rng.choice(self.tasks)
                        outs = self.all_outputs(up)
                        if outs:
                            if up.matrix and rng.random() < 0.5:
                                t.inputs.append(f"out/{up.base()}-*.txt" if up.kind == "build" else outs[0])
                            else:
                                t.inputs.append(rng.choice(outs))
                            if up.tid not in t.needs:
                                t.needs.append(up.tid)
                t.inputs = list(dict.fromkeys(t.inputs))
            if self.tasks and rng.random() < 0.3:
                extra = rng.choice(self.tasks).tid
                if extra not in t.needs:
                    t.needs.append(extra)
            if kind in ("build", "multi") and rng.random() < 0.15:
                t.matrix = ["a", "b"] if rng.random() < 0.7 else ["a", "b", "c"]
            self.tasks.append(t)

    def all_outputs(self, t):
        return [o for _, v in t.combos() for o in t.outputs(v)]

    def by_id(self):
        return {t.tid: t for t in self.tasks}

    # ---- the script each tool runs ------------------------------------------------------
    @staticmethod
    def words(pattern):
        return pattern + "*" if pattern.endswith("/") else pattern

    def body(self, t, v, hold):
        """The shell text of one combination (without env)."""
        if getattr(t, "script", None):
            return t.script
        header = f"printf '%s\\n' s{t.salt} \"V=$V\" \"G=$G\" \"M=$MATRIX_K\""
        cat = " ".join(self.words(p) for p in t.inputs)
        feed = f"{{ {header}; cat {cat}; }}" if t.inputs else f"{{ {header}; }}"
        if t.kind == "build":
            out = t.outputs(v)[0]
            text = f"{feed} > {out}"
        elif t.kind == "multi":
            d = t.outputs(v)[0]
            text = f"mkdir -p {d} && {feed} > {d}a.txt && {{ {header}; echo b; }} > {d}b.txt"
        else:
            text = f"{feed} >> log/{t.base()}{'-' + v if v else ''}.log"
        if hold:
            name = t.base() + (f"-{v}" if v else "")
            text += (f"; if [ -e .hold/{name} ]; then : > .hold/{name}.started;"
                     f" while [ -e .hold/{name} ]; do sleep 0.01; done; fi")
        return text

    # ---- flowrun ------------------------------------------------------------------------
    def yaml_task(self, t, ns_of):
        rng = random.Random(self.order_seed * 7919 + t.salt)
        fields = []
        if t.matrix:
            fields.append(f"    matrix: {{k: [{', '.join(t.matrix)}]}}")
            v = "${matrix.k}"
            script = self.body(t, "@@", True).replace("@@", "$MATRIX_K")
            outs = [o.replace("@@", v) for o in t.outputs("@@")]
        else:
            script = self.body(t, None, True)
            outs = t.outputs()
        fields.append(f"    shell: {json.dumps(script)}")
        if t.inputs:
            fields.append(f"    inputs: {json.dumps(t.inputs)}")
        if outs:
            fields.append(f"    outputs: {json.dumps(outs)}")
        if t.needs:
            needs = [ns_of(n) for n in t.needs]
            if self.needs_seed:
                random.Random(self.needs_seed + t.salt).shuffle(needs)
            fields.append(f"    needs: {json.dumps(needs)}")
        if t.env:
            fields.append(f"    env: {json.dumps(t.env)}")
        rng.shuffle(fields)
        return f"  {t.tid}:\n" + "\n".join(fields) + "\n"

    def write_flowrun(self, root):
        inc = [t for t in self.tasks if t.tid in self.include]
        main = [t for t in self.tasks if t.tid not in self.include]
        rng = random.Random(self.order_seed)
        order = main[:]
        if self.order_seed:
            rng.shuffle(order)
        ns = lambda n: f"inc:{n}" if n in self.include else n
        text = "version: 1\nenv: " + json.dumps(self.genv) + "\n"
        if inc:
            text += "include: {inc: inc.yaml}\n"
        text += "tasks:\n" + "".join(self.yaml_task(t, ns) for t in order)
        write(os.path.join(root, "flowrun.yaml"), text)
        if inc:
            itext = "version: 1\nenv: " + json.dumps(self.genv) + "\ntasks:\n"
            itext += "".join(self.yaml_task(t, lambda n: n) for t in inc)
            write(os.path.join(root, "inc.yaml"), itext)
        elif os.path.exists(os.path.join(root, "inc.yaml")):
            os.remove(os.path.join(root, "inc.yaml"))

    def flowrun_ids(self):
        """Each combination's id as flowrun names it, by (task id, value)."""
        out = {}
        for t in self.tasks:
            for cid, v in t.combos():
                out[(t.tid, v)] = ("inc:" + cid) if t.tid in self.include else cid
        return out

    # ---- make and ninja -----------------------------------------------------------------
    def target(self, t, v):
        if t.kind == "build":
            return t.outputs(v)[0]
        return f"stamp/{t.base()}{'-' + v if v else ''}"

    def peer_inputs(self, root, t):
        """The files each peer gets as prerequisites: globs expanded now, as a generator would."""
        files, order_only = [], []
        for p in t.inputs:
            if p.endswith("/"):
                up = next(u for u in self.tasks if any(o == p for _, vv in u.combos() for o in u.outputs(vv)))
                files.append(self.target(up, next(vv for _, vv in up.combos() if up.outputs(vv)[0] == p)))
            elif "*" in p:
                files += sorted(os.path.relpath(f, root) for f in glob.glob(os.path.join(root, p)))
                # a glob over another task's outputs: those targets, made first
                for u in self.tasks:
                    for _, vv in u.combos():
                        if u.kind == "build" and p.startswith(f"out/{u.base()}-"):
                            files.append(self.target(u, vv))
            else:
                files.append(p)
        for n in t.needs:
            u = self.by_id()[n]
            order_only += [self.target(u, vv) for _, vv in u.combos()]
        return list(dict.fromkeys(files)), [o for o in dict.fromkeys(order_only) if o not in files]

    def write_make(self, root):
        lines = [".PHONY: all always", "always:", ""]
        targets = []
        for t in self.tasks:
            files, order = self.peer_inputs(root, t)
            for cid, v in t.combos():
                tg = self.target(t, v)
                targets.append(tg)
                env = f"V='{t.env.get('V', '')}' G='{self.genv['G']}' MATRIX_K='{v or ''}'"
                script = self.body(t, v, False)
                if t.kind == "multi" or t.kind == "noout" or t.kind == "phony":
                    script += f" && touch {tg}"
                deps = " ".join(files + (["always"] if t.kind == "phony" else []))
                lines.append(f"{tg}: {deps} | {' '.join(order)}".rstrip(" |"))
                cmd = f"echo '{cid}' >> .ran; export {env}; {script}".replace("$", "$$")
                lines.append("\t@" + cmd)
        write(os.path.join(root, "Makefile"), "all: " + " ".join(targets) + "\n" + "\n".join(lines) + "\n")

    def write_ninja(self, root):
        lines = ["rule r", "  command = $cmd", "build always: phony", ""]
        targets = []
        for t in self.tasks:
            files, order = self.peer_inputs(root, t)
            for cid, v in t.combos():
                tg = self.target(t, v)
                targets.append(tg)
                env = f"V='{t.env.get('V', '')}' G='{self.genv['G']}' MATRIX_K='{v or ''}'"
                # globs spelled out, so that ninja's command check sees a file added
                words = []
                for p in t.inputs:
                    words += [os.path.relpath(f, root) for f in sorted(glob.glob(os.path.join(root, self.words(p))))]
                script = self.body(t, v, False)
                if t.inputs:
                    script = script.replace("cat " + " ".join(self.words(p) for p in t.inputs), "cat " + " ".join(words))
                if t.kind in ("multi", "noout", "phony"):
                    script += f" && touch {tg}"
                inner = f"echo '{cid}' >> .ran; export {env}; {script}"
                deps = " ".join(files + (["always"] if t.kind == "phony" else []))
                lines.append(f"build {tg}: r {deps}" + (f" || {' '.join(order)}" if order else ""))
                lines.append("  cmd = sh -c " + shquote(inner).replace("$", "$$"))
        lines.append("default " + " ".join(targets))
        write(os.path.join(root, "build.ninja"), "\n".join(lines) + "\n")


def shquote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def write(path, text, mode="w"):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, mode) as f:
        f.write(text)


def read(path):
    with open(path, "rb") as f:
        return f.read()


class Model:
    """The rules README.md promises, run on a tree of its own."""

    def __init__(self, spec):
        self.spec = spec
        # per absolute folder (the state is keyed by the workflow file's absolute path):
        # (tid, v) -> (fingerprint, outputs digest)
        self.recs = {}
        self.root = None
        # per absolute folder: the fingerprint of each task with neither field in the last run
        self.last_untracked = {}

    @property
    def rec(self):
        return self.recs.setdefault(self.root, {})

    def expand(self, root, pattern, own):
        if pattern.endswith("/"):
            files = sorted(os.path.relpath(os.path.join(dp, f), root)
                           for dp, _, fs in os.walk(os.path.join(root, pattern)) for f in fs)
        elif "*" in pattern:
            files = sorted(os.path.relpath(f, root) for f in glob.glob(os.path.join(root, pattern)))
        else:
            files = [pattern] if os.path.exists(os.path.join(root, pattern)) else []
        return [f for f in files if not any(f == o or (o.endswith("/") and f.startswith(o)) for o in own)]

    def files_digest(self, root, patterns, own=()):
        parts = []
        for p in patterns:
            fs = self.expand(root, p, own)
            parts.append((p, [(f, hashlib.sha256(read(os.path.join(root, f))).hexdigest()) for f in fs]))
            if not fs:
                parts.append(("missing", p))
        return h(parts), all(self.expand(root, p, ()) for p in patterns)

    def topo(self):
        done, order, by = set(), [], self.spec.by_id()
        def visit(t):
            if t.tid in done:
                return
            done.add(t.tid)
            for n in t.needs:
                visit(by[n])
            order.append(t)
        for t in self.spec.tasks:
            visit(t)
        return order

    def definition(self, root, t, v):
        return h(t.kind, self.spec.body(t, v, True), os.path.abspath(root), t.inputs, t.outputs(v))

    def run(self, root, force=False, during=None, resume=False):
        """Runs the tasks that the rules say run; returns their ids (spec ids). With `resume`
        (`--resume` of the last run, which succeeded), a task with neither field is kept too when
        its fingerprint is the last run's and none of its needs runs (README, Resume)."""
        ran, fp_now, out_now = set(), {}, {}
        by = self.spec.by_id()
        self.root = os.path.abspath(root)
        last = self.last_untracked.setdefault(self.root, {})
        for t in self.topo():
            for cid, v in t.combos():
                own = t.outputs(v)
                ins, _ = self.files_digest(root, t.inputs, own)
                needs = []
                for n in t.needs:
                    for _, nv in by[n].combos():
                        needs.append((fp_now[(n, nv)], out_now[(n, nv)] if by[n].tracked() else None))
                env = dict(self.spec.genv, **t.env, **({"MATRIX_K": v} if v else {}))
                fp = h(self.definition(root, t, v), sorted(env.items()), ins, sorted(needs))
                key = (t.tid, v)
                runs = True
                if t.tracked() and not force and key in self.rec:
                    outs, present = self.files_digest(root, own)
                    runs = not (self.rec[key] == (fp, outs) and present)
                if not t.tracked() and resume and not force:
                    need_ran = any((n, nv) in ran for n in t.needs for _, nv in by[n].combos())
                    runs = not (last.get(key) == fp and not need_ran)
                if not t.tracked():
                    last[key] = fp
                if runs:
                    self.execute(root, t, v)
                    ran.add(key)
                    outs, present = self.files_digest(root, own)
                    if t.tracked():
                        self.rec[key] = (fp, outs)
                    if during and during[0] == key:
                        during[1](root)
                        self.rec.pop(key, None)
                fp_now[key] = fp
                out_now[key] = self.files_digest(root, own)[0]
        if during and during[0] not in ran:
            during[1](root)
        return ran

    def execute(self, root, t, v):
        data = f"s{t.salt}\nV={t.env.get('V', '')}\nG={self.spec.genv['G']}\nM={v or ''}\n".encode()
        for p in t.inputs:
            for f in self.expand(root, Spec.words(p).rstrip("*") if p.endswith("/") else p, ()):
                data += read(os.path.join(root, f))
        if t.kind == "build":
            write(os.path.join(root, t.outputs(v)[0]), data.decode())
        elif t.kind == "multi":
            d = os.path.join(root, t.outputs(v)[0])
            os.makedirs(d, exist_ok=True)
            write(os.path.join(d, "a.txt"), data.decode())
            head = data.decode().split("\n")[:4]
            write(os.path.join(d, "b.txt"), "\n".join(head) + "\nb\n")


def seed_tree(spec, root, rng_seed):
    rng = random.Random(rng_seed)
    os.makedirs(os.path.join(root, "out"), exist_ok=True)
    for d in ("log", "stamp", ".hold"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    for f in spec.src:
        write(os.path.join(root, f), f"{f} {rng.randint(0, 9999)}\n")
    for g, files in spec.globfiles.items():
        for f in files:
            write(os.path.join(root, f), f"{f}\n")


def mtime_tick():
    # the peers compare times: an edit within the tick of the last write may not be seen by
    # make or ninja (their limit, not flowrun's); keep them apart
    time.sleep(0.02)


class Case:
    def __init__(self, args, index):
        self.args = args
        self.seed = args.seed * 100003 + index
        self.rng = random.Random(self.seed)
        self.spec = Spec(self.rng)
        self.base = os.path.join(args.work, f"case{index}")
        shutil.rmtree(self.base, ignore_errors=True)
        self.roots = {k: os.path.join(self.base, k) for k in ("flowrun", "model", "make", "ninja")}
        for r in self.roots.values():
            seed_tree(self.spec, r, self.seed)
        self.model = Model(self.spec)
        self.findings = []
        self.stats = {"runs": 0, "edits": 0}

    def note(self, kind, text):
        self.findings.append((kind, text))

    def run_flowrun(self, extra=(), during=None):
        root = self.roots["flowrun"]
        self.spec.write_flowrun(root)
        ev = os.path.join(self.base, "ev.jsonl")
        if os.path.exists(ev):
            os.remove(ev)
        cmd = [self.args.flowrun, "run", "flowrun.yaml", "--events", "plain", "--events-file", ev,
               "-j", str(self.rng.randint(1, 4)), *extra]
        log = open(os.path.join(self.base, "flowrun.log"), "a")
        log.write(f"\n### {' '.join(cmd)}\n")
        log.flush()
        if during:
            key, edit = during
            name = self.spec.by_id()[key[0]].base() + (f"-{key[1]}" if key[1] else "")
            hold = os.path.join(root, ".hold", name)
            write(hold, "")
            p = subprocess.Popen(cmd, cwd=root, stdout=log, stderr=subprocess.STDOUT)
            while not os.path.exists(hold + ".started"):
                if p.poll() is not None:
                    break
                time.sleep(0.005)
            edit(root)
            os.remove(hold)
            rc = p.wait()
            if os.path.exists(hold + ".started"):
                os.remove(hold + ".started")
        else:
            rc = subprocess.call(cmd, cwd=root, stdout=log, stderr=subprocess.STDOUT)
        events = [json.loads(l) for l in open(ev)] if os.path.exists(ev) else []
        return rc, events

    def ids_to_keys(self):
        return {fid: key for key, fid in self.spec.flowrun_ids().items()}

    def dry_run(self):
        root = self.roots["flowrun"]
        self.spec.write_flowrun(root)
        out = subprocess.run([self.args.flowrun, "run", "--dry-run", "flowrun.yaml"], cwd=root,
                             capture_output=True, text=True)
        with open(os.path.join(self.base, "flowrun.log"), "a") as log:
            log.write("\n### --dry-run\n" + out.stdout.split("Up to date check (inputs and outputs):")[-1] + out.stderr)
        would = set()
        tail = out.stdout.split("Up to date check (inputs and outputs):")[-1]
        for line in tail.splitlines():
            parts = line.split()
            if len(parts) >= 3 and parts[1] == "would" and parts[2] == "run:":
                would.add(parts[0])
        # a task with no inputs or outputs is listed as would run too
        return would, out.stdout

    def run_peer(self, tool):
        root = self.roots[tool]
        ran_file = os.path.join(root, ".ran")
        if os.path.exists(ran_file):
            os.remove(ran_file)
        if tool == "make":
            self.spec.write_make(root)
            cmd = ["make", "-s", "-j", "2"]
        else:
            self.spec.write_ninja(root)
            cmd = ["ninja", "-j", "2"]
        out = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
        if out.returncode != 0:
            self.note("peer-failed", f"{tool}: {out.stdout[-400:]} {out.stderr[-400:]}")
        ran = set(open(ran_file).read().split()) if os.path.exists(ran_file) else set()
        return ran

    def compare_trees(self, label):
        a, b = self.roots["flowrun"], self.roots["model"]
        def files(r):
            out = {}
            for dp, dns, fs in os.walk(r):
                dns[:] = [d for d in dns if d not in (".flowrun", "log", ".hold", "stamp")]
                for f in fs:
                    rel = os.path.relpath(os.path.join(dp, f), r)
                    if rel in ("flowrun.yaml", "inc.yaml", ".ran", "Makefile", "build.ninja") or rel.startswith(".ninja"):
                        continue
                    out[rel] = read(os.path.join(dp, f))
            return out
        fa, fb = files(a), files(b)
        for k in sorted(set(fa) | set(fb)):
            if fa.get(k) != fb.get(k):
                self.note("WRONG-RESULT", f"{label}: {k} differs from the model's (flowrun {fa.get(k)!r:.80} model {fb.get(k)!r:.80})")

    def step(self, label, during=None, force=False, resume=False):
        with open(os.path.join(self.base, "flowrun.log"), "a") as log:
            log.write(f"\n### STEP {label}\n")
        ids = self.ids_to_keys()
        would, dry = self.dry_run()
        mtime_tick()
        extra = ["--force"] if force else ["--resume"] if resume else []
        rc, events = self.run_flowrun(extra, during=None if not during else (during[0], during[1]))
        ran_f = {ids[e["task"]] for e in events if e["event"] == "task.started" and e["task"] in ids}
        failed = [e for e in events if e["event"] == "task.failed"]
        if rc != 0 or failed:
            self.note("RUN-FAILED", f"{label}: flowrun exit {rc}, failed {[e['task'] for e in failed]}")
        ran_m = self.model.run(self.roots["model"], force=force, during=during, resume=resume)
        self.stats["runs"] += 1
        for key in sorted(ran_m - ran_f, key=str):
            self.note("WRONG-GREEN", f"{label}: {key} should have run and did not")
        for key in sorted(ran_f - ran_m, key=str):
            self.note("SPEED", f"{label}: {key} ran needlessly")
        would_keys = {ids[w] for w in would if w in ids}
        if not force and not resume:
            by = self.spec.by_id()
            for key in sorted(ran_f - would_keys, key=str):
                # README: --dry-run takes a need's outputs as they are; one that runs first and
                # leaves other contents (a stray file in its folder stays) is not foreseen
                need_ran = any(k[0] in by[key[0]].needs for k in ran_f) if key[0] in by else False
                self.note("dry-under-after-need" if need_ran else "DRY-UNDER",
                          f"{label}: {key} ran, --dry-run said up to date")
            for key in sorted(would_keys - ran_f, key=str):
                # as make -n: a need that runs may leave the same output, and then it does not
                need_ran = any(k[0] in by[key[0]].needs for k in ran_f) if key[0] in by else False
                self.note("dry-over-after-need" if need_ran else "DRY-OVER",
                          f"{label}: {key} did not run, --dry-run said it would")
        self.compare_trees(label)
        # the peers
        spec_ids = {cid: key for key, cid in {(t.tid, v): c for t in self.spec.tasks for c, v in t.combos()}.items()}
        for tool in ("make", "ninja"):
            if during:
                during[1](self.roots[tool])
            ran_p = {spec_ids[c] for c in self.run_peer(tool) if c in spec_ids}
            self.stats.setdefault(tool + "-more", 0)
            self.stats.setdefault(tool + "-fewer", 0)
            self.stats[tool + "-more"] += len(ran_p - ran_f)
            self.stats[tool + "-fewer"] += len(ran_f - ran_p)
            self.peer_log.append((label, tool, sorted(map(str, ran_p - ran_f)), sorted(map(str, ran_f - ran_p))))
        return ran_f

    # ---- edits --------------------------------------------------------------------------
    def all_roots(self):
        return [self.roots[k] for k in ("flowrun", "model", "make", "ninja")]

    def edit(self, kind):
        rng, spec = self.rng, self.spec
        used_src = sorted({p for t in spec.tasks for p in t.inputs if p.startswith("src/f")}) or spec.src
        if kind == "edit-input":
            f = rng.choice(used_src)
            text = f"edit {rng.random()}\n"
            for r in self.all_roots():
                write(os.path.join(r, f), text, "a")
            return f
        if kind == "touch-input":
            f = rng.choice(used_src)
            for r in self.all_roots():
                os.utime(os.path.join(r, f))
            return f
        if kind in ("same-content", "same-content-rename"):
            f = rng.choice(used_src)
            for r in self.all_roots():
                p = os.path.join(r, f)
                data = read(p)
                if kind == "same-content":
                    with open(p, "wb") as fh:
                        fh.write(data)
                else:
                    with open(p + ".new", "wb") as fh:
                        fh.write(data)
                    os.replace(p + ".new", p)
            return f
        outs = [o for t in spec.tasks for _, v in t.combos() for o in t.outputs(v)]
        if kind in ("delete-output", "edit-output", "stray-in-output-folder"):
            if kind == "stray-in-output-folder":
                outs = [o for o in outs if o.endswith("/")]
            if not outs:
                return None
            o = rng.choice(outs)
            for r in self.all_roots():
                p = os.path.join(r, o)
                if kind == "delete-output":
                    shutil.rmtree(p, ignore_errors=True) if o.endswith("/") else (os.path.exists(p) and os.remove(p))
                elif kind == "edit-output":
                    target = os.path.join(p, "a.txt") if o.endswith("/") else p
                    if os.path.exists(target):
                        write(target, "by hand\n", "a")
                else:
                    write(os.path.join(p, "stray.txt"), "stray\n")
            return o
        if kind == "add-glob-file":
            g = rng.choice(spec.globs)
            f = f"{g}{rng.randint(100, 999):03d}.txt"
            for r in self.all_roots():
                write(os.path.join(r, f), f"{f} added\n")
            return f
        if kind == "remove-glob-file":
            g = rng.choice(spec.globs)
            files = sorted(glob.glob(os.path.join(self.roots["model"], g + "*.txt")))[1:]
            if not files:
                return None
            f = os.path.relpath(rng.choice(files), self.roots["model"])
            for r in self.all_roots():
                os.remove(os.path.join(r, f))
            return f
        if kind in ("change-command", "change-unrelated"):
            t = rng.choice(spec.tasks)
            t.salt += 1
            return t.tid
        if kind == "change-env":
            t = rng.choice(spec.tasks)
            t.env = {"V": f"v{rng.randint(100, 999)}"}
            return t.tid
        if kind == "change-global-env":
            spec.genv["G"] = f"g{rng.randint(1, 999)}"
            return spec.genv["G"]
        if kind == "rename-task":
            t = rng.choice([t for t in spec.tasks if t.tid not in spec.include])
            spec.counter += 1
            new = f"r{spec.counter}"
            for u in spec.tasks:
                u.needs = [new if n == t.tid else n for n in u.needs]
            old = t.tid
            t.tid = new               # its files keep their paths: only the id changes
            for rec in list(self.model.recs.values()) + list(self.model.last_untracked.values()):
                for k in [k for k in rec if k[0] == old]:
                    rec.pop(k)
            return f"{old} -> {new}"
        if kind == "reorder-keys":
            spec.order_seed = rng.randint(1, 10**6)
            return str(spec.order_seed)
        if kind == "reorder-needs":
            spec.needs_seed = rng.randint(1, 10**6)
            return str(spec.needs_seed)
        if kind == "add-include":
            roots = [t for t in spec.tasks if not t.needs and t.tid not in spec.include]
            if not roots:
                return None
            picked = rng.sample(roots, min(len(roots), rng.randint(1, 3)))
            for t in picked:
                spec.include.add(t.tid)
                for rec in list(self.model.recs.values()) + list(self.model.last_untracked.values()):   # inc:ID: no history
                    for k in [k for k in rec if k[0] == t.tid]:
                        rec.pop(k)
            return ",".join(t.tid for t in picked)
        if kind == "move-folder":
            old = self.roots["flowrun"]
            new = old + "-moved" if not old.endswith("-moved") else old[: -len("-moved")]
            shutil.move(old, new)
            self.roots["flowrun"] = new
            # the model's workdir moves too (definitions hold the absolute workdir)
            oldm = self.roots["model"]
            newm = oldm + "-moved" if not oldm.endswith("-moved") else oldm[: -len("-moved")]
            shutil.move(oldm, newm)
            self.roots["model"] = newm
            return new
        if kind == "nothing":
            return ""
        raise ValueError(kind)

    def during_edit(self):
        """A task with a literal src input; its input edited while it runs."""
        readers = {}
        for t in self.spec.tasks:
            for p in t.inputs:
                readers.setdefault(p, []).append(t)
        # an input read by this task alone, which runs once: no other task's reading races the edit
        cands = [(t, None, p) for t in self.spec.tasks for p in t.inputs
                 if p.startswith("src/f") and len(readers[p]) == 1 and not t.matrix and t.kind != "phony"]
        if not cands:
            return None
        t, v, p = self.rng.choice(cands)
        t.salt += 1               # so that it runs
        text = f"during {self.rng.random()}\n"
        return ((t.tid, v), lambda root: write(os.path.join(root, p), text, "a")), f"{t.tid}[{v}] {p}"

    def go(self):
        self.peer_log = []
        self.step("first run")
        self.step("no change")
        for i in range(self.args.edits):
            kind = self.rng.choice(EDITS)
            if kind == "edit-during-run":
                d = self.during_edit()
                if not d:
                    continue
                during, what = d
                label = f"edit {i}: {kind} {what}"
                self.stats["edits"] += 1
                self.step(label, during=during)
                continue
            what = self.edit(kind)
            if what is None:
                continue
            self.stats["edits"] += 1
            resume = kind != "move-folder" and self.rng.random() < 0.25
            self.step(f"edit {i}: {kind} {what}" + (" (--resume)" if resume else ""), resume=resume)
        return self.findings


# ---- faults -------------------------------------------------------------------------------
FAULTS = ["full-disk", "full-disk", "kill-outside", "kill-outside-resume", "kill-inside", "kill-inside-resume",
          "corrupt-tasks-bin", "truncate-tasks-bin", "corrupt-journal", "truncate-journal",
          "corrupt-plan", "truncate-plan", "corrupt-record-resume", "truncate-record-resume",
          "two-at-once"]


class FaultCase(Case):
    """A generated workflow, then faults: each followed by a run that must end green with
    every file the model's."""

    def flowrun_cmd(self, *extra):
        return [self.args.flowrun, "run", "flowrun.yaml", "--events", "plain", *extra]

    def state_on_tmpfs(self):
        """The state folder on a small tmpfs of its own (root only), for the full disk."""
        self.state = os.path.join(self.base, "state")
        os.makedirs(self.state, exist_ok=True)
        if subprocess.call(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", self.state]) != 0:
            self.state = None
            return
        os.environ["FLOWRUN_STATE_DIR"] = self.state

    def unmount(self):
        if getattr(self, "state", None):
            os.environ.pop("FLOWRUN_STATE_DIR", None)
            subprocess.call(["umount", self.state])

    def fill(self, leave):
        """Fills the tmpfs but `leave` bytes."""
        filler = os.path.join(self.state, "filler")
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        try:
            while os.write(fd, b"\0" * 4096) > 0:
                pass
        except OSError:
            pass
        os.close(fd)
        st = os.statvfs(self.state)
        free = st.f_bavail * st.f_frsize
        size = os.path.getsize(filler)
        os.truncate(filler, max(0, size - max(0, leave - free)))
        return filler

    def settle(self, label, resume=False):
        """The run after a fault: green, and the tree the model's."""
        root = self.roots["flowrun"]
        self.spec.write_flowrun(root)
        ev = os.path.join(self.base, "ev.jsonl")
        if os.path.exists(ev):
            os.remove(ev)
        cmd = self.flowrun_cmd("--events-file", ev, *(["--resume"] if resume else []))
        out = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
        with open(os.path.join(self.base, "flowrun.log"), "a") as log:
            log.write(f"\n### {label}: {' '.join(cmd)}\n{out.stdout}{out.stderr}")
        if out.returncode != 0:
            self.note("FAULT-RUN-FAILED", f"{label}: exit {out.returncode}: {out.stderr[-300:]}")
        self.model.run(self.roots["model"])
        self.stats["runs"] += 1
        self.compare_trees(label)
        return out

    def change_many(self):
        """An edit that makes most tasks run: the global env."""
        self.spec.genv["G"] = f"g{self.rng.randint(1000, 9999)}"

    def state_files(self, pattern):
        return sorted(glob.glob(os.path.join(self.roots["flowrun"], ".flowrun", pattern)))

    def damage(self, path, how):
        data = bytearray(read(path))
        if not data:
            return False
        if how == "truncate":
            data = data[: self.rng.randint(0, len(data) - 1)]
        else:
            i = self.rng.randrange(len(data))
            data[i] ^= 1 << self.rng.randrange(8)
        with open(path, "wb") as f:
            f.write(data)
        return True

    def fault(self, kind):
        root = self.roots["flowrun"]
        label = f"fault {kind}"
        if kind == "full-disk":
            if not getattr(self, "state", None):
                return
            self.change_many()
            self.spec.write_flowrun(root)
            leave = self.rng.choice([0, 512, 4096, self.rng.randint(0, 65536)])
            filler = self.fill(leave)
            out = subprocess.run(self.flowrun_cmd(), cwd=root, capture_output=True, text=True)
            os.remove(filler)
            label += f" leaving {leave} bytes"
            with open(os.path.join(self.base, "flowrun.log"), "a") as log:
                log.write(f"\n### {label}\n{out.stdout}{out.stderr}")
            if out.returncode != 0:
                self.note("FAULT-RUN-FAILED", f"{label}: a full state folder failed the run: exit {out.returncode}: {out.stderr[-300:]}")
            self.model.run(self.roots["model"])
            self.compare_trees(label)
            self.settle(label + ", then space again")
            return
        if kind.startswith("kill-outside"):
            self.change_many()
            self.spec.write_flowrun(root)
            p = subprocess.Popen(self.flowrun_cmd(), cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            delay = self.rng.uniform(0.0, 0.4)
            time.sleep(delay)
            p.kill()
            p.wait()
            label += f" after {delay:.3f}s"
            self.settle(label, resume=kind.endswith("resume"))
            return
        if kind.startswith("kill-inside"):
            # a task that kills flowrun (SIGKILL) once, between other tasks
            self.change_many()
            killer = Task(f"k{self.spec.counter}", "phony")
            self.spec.counter += 1
            killer.salt = -1
            others = [t.tid for t in self.spec.tasks if t.tid not in self.spec.include]
            killer.needs = self.rng.sample(others, min(len(others), self.rng.randint(0, 3)))
            killer.script = "if [ -e .kill ]; then rm -f .kill; kill -9 $PPID; fi"
            self.spec.tasks.append(killer)
            write(os.path.join(root, ".kill"), "")
            self.spec.write_flowrun(root)
            subprocess.run(self.flowrun_cmd(), cwd=root, capture_output=True)
            label += f" after {killer.needs}"
            self.settle(label, resume=kind.endswith("resume"))
            return
        if kind in ("corrupt-tasks-bin", "truncate-tasks-bin", "corrupt-journal", "truncate-journal",
                    "corrupt-plan", "truncate-plan"):
            pattern = {"tasks-bin": "tasks-*.bin", "journal": "tasks-*.journal", "plan": "plan-*.bin"}[kind.split("-", 1)[1]]
            files = self.state_files(pattern)
            if not files:
                if kind.endswith("journal"):
                    # a journal is left only by a run killed midway: make one
                    self.change_many()
                    self.spec.write_flowrun(root)
                    p = subprocess.Popen(self.flowrun_cmd(), cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    time.sleep(self.rng.uniform(0.05, 0.3))
                    p.kill()
                    p.wait()
                    files = self.state_files(pattern)
                if not files:
                    return
            f = self.rng.choice(files)
            self.damage(f, kind.split("-")[0])
            if self.rng.random() < 0.5:
                self.edit(self.rng.choice(["edit-input", "delete-output", "edit-output", "change-command"]))
            label += f" {os.path.basename(f)}"
            out = self.settle(label)
            return
        if kind in ("corrupt-record-resume", "truncate-record-resume"):
            files = sorted(glob.glob(os.path.join(root, ".flowrun", "runs", "*", "*.jsonl")))
            if not files:
                return
            self.damage(files[-1], kind.split("-")[0])
            self.spec.write_flowrun(root)
            out = subprocess.run(self.flowrun_cmd("--resume"), cwd=root, capture_output=True, text=True)
            if out.returncode not in (0, 2):
                self.note("FAULT-RUN-FAILED", f"{label}: --resume exit {out.returncode}: {out.stderr[-300:]}")
            self.model.run(self.roots["model"])
            self.compare_trees(label + " (resumed)")
            self.settle(label)
            return
        if kind == "two-at-once":
            self.change_many()
            self.spec.write_flowrun(root)
            a = subprocess.Popen(self.flowrun_cmd(), cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            b = subprocess.Popen(self.flowrun_cmd(), cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            oa, ob = a.communicate()[0], b.communicate()[0]
            if a.returncode or b.returncode:
                self.note("FAULT-RUN-FAILED", f"{label}: exits {a.returncode} {b.returncode}: {oa[-200:]} {ob[-200:]}")
            self.model.run(self.roots["model"])
            self.compare_trees(label)
            self.settle(label + " then")
            return
        raise ValueError(kind)

    def go(self):
        self.peer_log = []
        if self.args.tmpfs_state:
            self.state_on_tmpfs()
        try:
            return self.faults()
        finally:
            self.unmount()

    def faults(self):
        self.settle("first run")
        for i in range(self.args.edits):
            kind = self.rng.choice(FAULTS)
            self.stats["edits"] += 1
            self.fault(kind)
        # the killer tasks out, and a last whole run from what the faults left
        self.spec.tasks = [t for t in self.spec.tasks if t.salt != -1]
        self.settle("last run")
        return self.findings


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--flowrun", required=True)
    ap.add_argument("--cases", type=int, default=20)
    ap.add_argument("--edits", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--work", default="/tmp/makepeer")
    ap.add_argument("--only-case", type=int)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--tmpfs-state", action="store_true", help="with --faults: the state folder on a 1 MiB tmpfs (root), filled up")
    ap.add_argument("--faults", action="store_true", help="faults (kill -9, damaged state, two runs) instead of edits")
    args = ap.parse_args()
    args.flowrun = os.path.abspath(args.flowrun)
    os.makedirs(args.work, exist_ok=True)
    totals = {"cases": 0, "tasks": 0, "runs": 0, "edits": 0}
    kinds = {}
    peers = {}
    by_kind = {}
    cases = [args.only_case] if args.only_case is not None else range(args.cases)
    for index in cases:
        case = (FaultCase if args.faults else Case)(args, index)
        findings = case.go()
        totals["cases"] += 1
        totals["tasks"] += sum(len(t.combos()) for t in case.spec.tasks)
        totals["runs"] += case.stats["runs"]
        totals["edits"] += case.stats["edits"]
        for k, v in case.stats.items():
            if k.startswith(("make", "ninja")):
                peers[k] = peers.get(k, 0) + v
        # by edit kind: tasks the peer ran that flowrun did not, and the reverse
        for label, tool, more, fewer in case.peer_log:
            kind = label.split(": ")[1].split(" ")[0] if ": " in label else label
            row = by_kind.setdefault(kind, {})
            row[tool + "+"] = row.get(tool + "+", 0) + len(more)
            row[tool + "-"] = row.get(tool + "-", 0) + len(fewer)
        for kind, text in findings:
            kinds[kind] = kinds.get(kind, 0) + 1
            print(f"case {index} (seed {case.seed}): {kind}: {text}")
        if not findings and not args.keep:
            shutil.rmtree(case.base, ignore_errors=True)
        sys.stdout.flush()
    print("totals:", json.dumps(totals), "findings:", json.dumps(kinds), "peers:", json.dumps(peers))
    print("tasks run by make/ninja and not flowrun (+), by flowrun and not them (-), by edit:")
    for kind in sorted(by_kind):
        row = by_kind[kind]
        print(f"  {kind:24} " + " ".join(f"{k}{row.get(k, 0):5}" for k in ("make+", "make-", "ninja+", "ninja-")))


if __name__ == "__main__":
    main()
