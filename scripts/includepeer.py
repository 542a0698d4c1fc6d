#!/usr/bin/env python3
"""flowrun's `include:` against what a go-task user expects of `includes:`, over generated trees.

Each case is a random tree of workflow files, all named flowrun.yaml as go-task's are all
Taskfile.yml, in nested folders: the root includes 1-3 of them under namespaces, and they
include others (to depth 3; one file is sometimes included twice under two names). Every file
has tasks that need tasks of their own file and of the files they include (`NS:ID`), and
declares queues from a small pool. A model in Python gives each task's full id (`a:b:ID`), its
needs, its folder, and the merged queues. Checked:
- `list --json`: the ids and each task's needs, against the model;
- a real run with JSON Lines events: every task ran in its file's folder (its `pwd`), and none
  started before all its needs had succeeded;
- a queue declared twice with other limits: an error naming both places;
- now and then a cycle (a file including an ancestor's file): `include cycle: A -> B -> A`, with
  each file named so that it can be told apart (paths from the root file's folder);
- now and then a mistake in an included file (an unknown key): the error names that file's path
  and the line and column of the key.

  python3 scripts/includepeer.py --flowrun .build/debug/flowrun --cases 150 --seed 1
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

QUEUES = {"net": [1, 2], "disk": [1, 3], "cpu": [2]}


class File:
    def __init__(self, folder, depth):
        self.folder = folder          # relative to the root's folder ('' for the root)
        self.depth = depth
        self.includes = []            # (namespace, File)
        self.tasks = []               # (id, [needs as written])
        self.queues = {}              # name -> (concurrency, line)
        self.bogus = None             # (line, column) of an unknown key
        self.cycle_to = None          # (namespace, File) making a cycle

    @property
    def path(self):
        return os.path.join(self.folder, "flowrun.yaml") if self.folder else "flowrun.yaml"


def generate(rng):
    root = File("", 0)
    files = [root]

    def grow(parent):
        if parent.depth >= 3:
            return
        for n in range(rng.choice([0, 1, 1, 2] if parent.depth else [1, 2, 3])):
            ns = rng.choice(["lib", "app", "tools", "db"]) + str(n)
            if parent.includes and rng.random() < 0.15:   # the same file under a second name
                parent.includes.append((ns, parent.includes[0][1]))
                continue
            child = File(os.path.join(parent.folder, rng.choice(["sub", "x", "deep"]) + str(len(files))), parent.depth + 1)
            files.append(child)
            parent.includes.append((ns, child))
            grow(child)
    grow(root)
    for f in files:
        for i in range(rng.randint(1, 3)):
            needs = []
            if i and rng.random() < 0.6:
                needs.append("t%d" % rng.randrange(i))
            if f.includes and rng.random() < 0.6:
                ns, other = rng.choice(f.includes)
                needs.append("%s:t%d" % (ns, rng.randrange(1)))
            f.tasks.append(("t%d" % i, needs))
        for name in rng.sample(sorted(QUEUES), rng.randint(0, 2)):
            # Mostly the same limit everywhere, as a real tree has; now and then another one.
            f.queues[name] = QUEUES[name][0] if rng.random() < 0.93 else rng.choice(QUEUES[name])
    if rng.random() < 0.1 and len(files) > 1:
        f = rng.choice(files[1:])
        f.bogus = True
    if rng.random() < 0.1 and len(files) > 1:
        f = rng.choice(files[1:])
        f.cycle_to = ("back", root)
    return root, files


def write(folder, files):
    for f in files:
        lines = ["version: 1"]
        includes = list(f.includes) + ([f.cycle_to] if f.cycle_to else [])
        if includes:
            lines.append("include:")
            for ns, other in includes:
                lines.append("  %s: %s" % (ns, os.path.relpath(other.path, f.folder or ".")))
        f.queue_lines = {}
        if f.queues:
            lines.append("queues:")
            for name, limit in f.queues.items():
                lines.append("  %s: {concurrency: %d}" % (name, limit))
                f.queue_lines[name] = (len(lines), 3)
        lines.append("tasks:")
        for tid, needs in f.tasks:
            lines.append("  %s:" % tid)
            if needs:
                lines.append("    needs: [%s]" % ", ".join(json.dumps(n) for n in needs))
            lines.append("    shell: 'printf \"%s\\n\" \"$PWD\"'")
            if f.bogus and tid == "t0":
                lines.append("    neds: x")
                f.bogus = (len(lines), 5)
        path = os.path.join(folder, f.path)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as out:
            out.write("\n".join(lines) + "\n")


def model(root, folder):
    """id -> (needs, folder), and queue conflicts as (path, line) pairs."""
    tasks = {}
    queues = {}       # name -> (limit, path)
    conflicts = []

    def visit(f, prefix):
        for ns, other in f.includes:
            visit(other, prefix + ns + ":")
        for name, limit in f.queues.items():
            if name in queues and queues[name][0] != limit:
                conflicts.append((f.path, name))
            queues.setdefault(name, (limit, f.path))
        for tid, needs in f.tasks:
            tasks[prefix + tid] = ([prefix + n for n in needs], os.path.realpath(os.path.join(folder, f.folder)))
    visit(root, "")
    return tasks, conflicts


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--flowrun", default=".build/debug/flowrun")
    parser.add_argument("--cases", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    flowrun = os.path.abspath(args.flowrun)
    rng = random.Random(args.seed)
    root_folder = tempfile.mkdtemp(prefix="includepeer-")
    differing = 0
    counts = {}
    for case in range(args.cases):
        root, files = generate(rng)
        folder = os.path.join(root_folder, "case%04d" % case)
        os.makedirs(folder)
        write(folder, files)
        tasks, conflicts = model(root, folder)
        cycles = [f for f in files if f.cycle_to]
        bogus = [f for f in files if f.bogus]
        found = []
        listed = subprocess.run([flowrun, "list", "--json", "flowrun.yaml"], cwd=folder, capture_output=True, text=True)
        kind = "run"
        if cycles or bogus or conflicts:
            kind = "refused"
            if listed.returncode != 2:
                found.append("accepted: %s" % listed.stdout[-300:])
            for f in cycles:
                chain = []
                # The chain from the root down to f, then back to the root.
                def path_to(node, target, trail):
                    if node is target:
                        return trail + [node]
                    for _, other in node.includes:
                        got = path_to(other, target, trail + [node])
                        if got:
                            return got
                    return None
                chain = [n.path for n in path_to(root, f, [])] + [root.path]
                want = "include cycle: " + " -> ".join(chain)
                if want not in listed.stderr:
                    found.append("cycle: want %r in %r" % (want, listed.stderr[-400:]))
            for f in bogus:
                want = "%s:%d:%d: error: unknown key 'neds'" % (f.path, f.bogus[0], f.bogus[1])
                if want not in listed.stderr:
                    found.append("bogus key: want %r in %r" % (want, listed.stderr[-400:]))
            for path, name in conflicts:
                if not re.search(r"error: queue '%s' is declared with another concurrency \(\d+\) at \S+:\d+:\d+" % name,
                                 listed.stderr):
                    found.append("queue conflict on %s (%s) not said: %r" % (name, path, listed.stderr[-400:]))
        elif listed.returncode != 0:
            found.append("refused: %s" % listed.stderr[-400:])
        else:
            got = {t["id"]: t["needs"] for t in json.loads(listed.stdout)}
            want = {tid: needs for tid, (needs, _) in tasks.items()}
            if got != want:
                found.append("list: want %s got %s" % (want, got))
            run = subprocess.run([flowrun, "run", "--no-record", "--events", "jsonl", "flowrun.yaml"], cwd=folder,
                                 capture_output=True, text=True)
            if run.returncode != 0:
                found.append("run exit %d: %s" % (run.returncode, run.stderr[-300:]))
            else:
                ended, lines = {}, {}
                for line in run.stdout.splitlines():
                    event = json.loads(line)
                    tid = event.get("task")
                    if event["event"] == "task.started":
                        for need in tasks[tid][0]:
                            if need not in ended:
                                found.append("%s started before its need %s ended" % (tid, need))
                    elif event["event"] == "task.succeeded":
                        ended[tid] = True
                    elif event["event"] == "task.output":
                        lines[tid] = event.get("line", event.get("text", "")).rstrip("\n")
                for tid, (_, where) in tasks.items():
                    if os.path.realpath(lines.get(tid, "?")) != where:
                        found.append("%s ran in %s, not %s" % (tid, lines.get(tid), where))
        counts[kind] = counts.get(kind, 0) + 1
        if found:
            differing += 1
            print("case %d (%s):" % (case, folder))
            for line in found[:6]:
                print("  " + line)
        else:
            shutil.rmtree(folder)
    print("cases %d, differing %d; %s" % (args.cases, differing, json.dumps(counts, sort_keys=True)))
    if differing == 0:
        shutil.rmtree(root_folder)
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()
