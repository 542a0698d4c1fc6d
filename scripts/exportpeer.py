#!/usr/bin/env python3
"""`flowrun export` against what GitHub Actions and Argo Workflows read, over generated workflows.

Each case is a random workflow: 2-10 tasks (1 case in 20 adds 257-320 more) whose ids are
picked to need care (`on`, `yes`, `null`, `true`, `not`, `in`, `1st.setup`, `-x`, `a.b` beside `a_b` and `A.B`, 64-character ids,
names Argo reserves), needs across queues, `when`, retries, retry_delay, timeouts,
continue_on_error, priorities, a matrix with include/exclude, group tasks, an included file, a
dotenv file, and env values that a YAML reader or Actions could take for something else (`on`,
`0755`, `1e3`, `~`, `"`, `\\`, newlines, `${{ ... }}`, `: `, ` #`, leading `-`, `*`, `&`,
unicode, tabs, 300 characters).

Both exports of every case are checked as their consumers read them:
- GitHub: check-jsonschema's `vendor.github-workflows` schema (all files in one call) and
  actionlint; job ids `^[A-Za-z_][A-Za-z0-9_-]*$`, unique without case; one job per task of
  `flowrun list --json` (matrix combinations, `NS:ID`), named by its id; the jobs' `needs` give the
  same reachability as the flowrun graph (a `when: failure` job may also need ancestors); env
  (workflow and job) read back by a YAML 1.2 reader (ruamel.yaml) and a YAML 1.1 one (PyYAML) as
  the exact strings, after GitHub evaluates `${{ }}` (only the `${{ '${{' }}` escape may be an
  expression); timeout-minutes = ceil((attempts x timeout + the waits) / 60); the retry loop's
  sleeps; continue-on-error.
- Argo: every document as a YAML 1.2 and 1.1 reader reads it; metadata names DNS-1123 (a
  generateName leaves room for Kubernetes' 5 characters); template and DAG task names
  `[a-z0-9][-a-z0-9]*`, unique, no digit first; every `depends` expression parses in Argo's
  evaluator (expr: task names with `-` read as `_`, and the words expr keeps for itself:
  `not`, `in`, `and`, `or`, `matches`, `contains`, `let`, `if`, `else`, `true`, `false`, `nil`)
  and names exactly the DAG tasks of the flowrun needs (plus, for `when: failure`, their
  ancestors); the `task` parameter reads back as the id; retryStrategy limit and backoff;
  activeDeadlineSeconds; parallelism; semaphores with their ConfigMap keys.
- Both: the same input gives the same bytes; and where some tasks fail (`exit 1`), a real
  `flowrun run --no-retry` (fail_fast off) runs the same tasks as a simulation of each export
  with the same results: Actions' job `if:` (with its implicit success(), failure() over the
  ancestors, continue-on-error) and Argo's `depends` over Succeeded/Failed/Omitted.
- With --reports M: M runs of generated workflows (ids such as `-x`, `GH-12`, a workflow name
  with `<script>`, `|`, Markdown marks; output with `</script>`, pipes, ANSI, bytes that are not
  UTF-8, control characters, long lines; retries, allowed failures), run under GitHub Actions'
  variables after earlier text in $GITHUB_STEP_SUMMARY (none, a table, an open HTML block, no
  final newline, 1 MiB less 3000 bytes): the earlier text is kept, the file stays under 1 MiB,
  markdown-it reads a flowrun heading and a table of the failed tasks with 4 cells a row whose
  first cell reads back as the task id; the trace has integer pid/tid/ts/dur, one slice per
  attempt, named tracks, no overlap; the HTML has only its own two scripts and its run data
  parses; the JUnit file passes junit-10.xsd and names every task.

  python3 scripts/exportpeer.py --flowrun .build/debug/flowrun --seed 1 --cases 200
Prints each difference and a count; exits 1 if any.
"""
import argparse
import io
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

import yaml
from ruamel.yaml import YAML

TRICKY_IDS = ["on", "yes", "no", "null", "true", "false", "y", "Y", "ON", "off", "not", "in", "and", "or",
              "if", "else", "let", "nil", "matches", "contains", "1st.setup", "-x", "-", "_x", "a.b", "a_b",
              "A.B", "a-b", "1e3", "0755", "123", "0x1F", "flowrun-setup", "flowrun-task", "flowrun-dag",
              "t-1st-setup", "build", "Build", "BUILD", "test.unit", "x" * 64, "y" * 63 + "z", "." * 3,
              "__", "a..b", "t-", "Ab-Cd_Ef.Gh"]
PLAIN_IDS = ["fetch", "unpack", "compile", "lint", "package", "deploy", "docs", "bench", "report", "clean"]
TRICKY_VALUES = ["on", "off", "yes", "No", "y", "~", "null", "", " ", "0755", "0o17", "0x1F", "1e3", "1_000",
                 "3.10", ".inf", "-.5", "true", "True", "say \"hi\"", "back\\slash", "line1\nline2",
                 "trailing\n", "\nleading", "tab\there", "${{ secrets.TOKEN }}", "${{", "}}", "$x ${y}",
                 "a: b", "a #b", "#c", "- item", "-x", "*star", "&anchor", "!tag", "%pct", "@at", "`tick`",
                 "|pipe", ">gt", "[1, 2]", "{a: 1}", "'single'", "caf\u00e9", "\u65e5\u672c", "emoji \U0001F600",
                 "nbsp\u00a0x", "\u2028sep", "x" * 300, "=", "a=b", "? q", ", comma", "2026-11-28",
                 "12:30", "0b101", "+1", "=", "<<"]
NAMES = ["demo", "on", "yes", "my: flow", "flow #1", "${{ github.ref }}", "-lead", "caf\u00e9 flow",
         "x" * 120, "*", "a\"b", "UPPER Case"]
WHENS = ["success"] * 5 + ["failure", "always"]
DURATIONS = ["1s", "30s", "59s", "61s", "90s", "5m", "1h", "2m30s", "500ms"]
KEYWORDS = {"not", "in", "and", "or", "matches", "contains", "startsWith", "endsWith", "let", "if", "else",
            "true", "false", "nil"}
GITHUB_JOB = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")
ARGO_NAME = re.compile(r"[a-z][-a-z0-9]*\Z")
DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?\Z")
DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\Z")
RESULTS = ("Succeeded", "Failed", "Errored", "Skipped", "Omitted", "Daemoned")


def seconds(duration):
    total = 0.0
    for number, unit in re.findall(r"(\d+)(ms|h|m|s)", duration):
        total += int(number) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600}[unit]
    return total


def dq(text):
    """A YAML double-quoted scalar (JSON's escapes are YAML's)."""
    return json.dumps(text, ensure_ascii=False)


class Case:
    """One generated workflow: the text of its files and the fields the checks need."""

    def __init__(self, rng):
        self.rng = rng
        self.files = {}
        self.tasks = {}  # id -> fields as written (before matrix expansion)
        self.shells = {}
        self.build()

    def pick_ids(self, count):
        ids = []
        while len(ids) < count:
            pool = TRICKY_IDS if self.rng.random() < 0.6 else PLAIN_IDS
            candidate = self.rng.choice(pool)
            if candidate not in ids:
                ids.append(candidate)
        return ids

    def env(self, count):
        keys = self.rng.sample(["A", "B", "ON", "Y", "n", "PATH_X", "_U", "X1", "LONG_NAME_WITH_UNDERSCORES"], count)
        return {key: self.rng.choice(TRICKY_VALUES) for key in keys}

    def build(self):
        rng = self.rng
        lines = ["version: 1"]
        self.name = rng.choice(NAMES)
        lines.append(f"name: {dq(self.name)}")
        self.concurrency = rng.choice([None, 1, 2, 4])
        if self.concurrency:
            lines.append(f"concurrency: {self.concurrency}")
        self.outcomes = rng.random() < 0.6  # some tasks fail, and the run's outcome is compared
        self.fail_fast = False if self.outcomes else rng.choice([None, True, False])
        if self.fail_fast is not None:
            lines.append(f"fail_fast: {str(self.fail_fast).lower()}")
        self.workflow_env = self.env(rng.randint(0, 4))
        if self.workflow_env:
            lines.append("env:")
            lines += [f"  {dq(k)}: {dq(v)}" for k, v in self.workflow_env.items()]
        self.queues = {}
        if rng.random() < 0.5:
            for name in rng.sample(["serial", "net", "on", "q.1", "Gpu"], rng.randint(1, 2)):
                self.queues[name] = rng.randint(1, 3)
            lines.append("queues:")
            lines += [f"  {dq(q)}: {{concurrency: {c}}}" for q, c in self.queues.items()]
        if rng.random() < 0.3:
            self.files["vars.env"] = "DOT_A=on\nDOT_B='0755'\n"
            lines.append("dotenv: [vars.env, \"?missing.env\"]")
        self.include = rng.random() < 0.3
        if self.include:
            self.files["inc/tools.yaml"] = ("version: 1\ntasks:\n  lint: {shell: \"true\"}\n"
                                            "  \"on\": {needs: [lint], shell: \"true\", retries: 1}\n")
            lines.append("include: {tools: inc/tools.yaml}")
        big = rng.random() < 0.05  # over GitHub's 256 jobs: grouped into jobs
        ids = self.pick_ids(rng.randint(2, 10)) + ([f"n{i}.s" for i in range(rng.randint(257, 320))] if big else [])
        if big:
            self.outcomes = False
        lines.append("tasks:")
        for index, task_id in enumerate(ids):
            fields = {}
            earlier = ids[max(0, index - 20):index] + (["tools:on", "tools:lint"] if self.include else [])
            needs = rng.sample(earlier, rng.randint(0, min(3, len(earlier))))
            group = bool(needs) and rng.random() < 0.15
            if needs:
                fields["needs"] = needs
            if rng.random() < 0.3:
                fields["when"] = rng.choice(WHENS)
            if not group:
                if rng.random() < 0.3:
                    fields["retries"] = rng.randint(1, 4)
                    if rng.random() < 0.6:
                        fields["retry_delay"] = rng.choice(DURATIONS)
                if rng.random() < 0.3:
                    fields["timeout"] = rng.choice(DURATIONS)
                if rng.random() < 0.2:
                    fields["continue_on_error"] = True
                if self.queues and rng.random() < 0.5:
                    fields["queue"] = rng.choice(sorted(self.queues))
                if rng.random() < 0.2:
                    fields["priority"] = rng.choice(["low", "high", "very-high"])
                if rng.random() < 0.4:
                    fields["env"] = self.env(rng.randint(1, 3))
                if rng.random() < 0.2:
                    fields["matrix"] = rng.choice([
                        {"os": ["linux", "mac"], "py": ["3.10", "3.11"]},
                        {"os": ["linux", "mac"], "py": ["3.10", "3.11"], "exclude": [{"os": "mac", "py": "3.10"}],
                         "include": [{"os": "linux", "extra": "yes"}, {"os": "win", "py": "3.12"}]},
                        {"v": ["on", "off", "1e3"]},
                        {"include": [{"k": "a"}, {"k": "b.c"}]},
                    ])
                if "matrix" not in fields and rng.random() < 0.2:
                    fields["outputs"] = [f"out/{re.sub(r'[^A-Za-z0-9]', '_', task_id)}.txt"]
            self.tasks[task_id] = fields
            lines.append(f"  {dq(task_id)}:")
            for key, value in fields.items():
                lines.append(f"    {key}: {json.dumps(value, ensure_ascii=False)}")
            if not group:
                fails = self.outcomes and rng.random() < 0.3
                writes = "".join(f"mkdir -p out && : > {o}; " for o in fields.get("outputs", []))
                self.shells[task_id] = writes + ("exit 1" if fails else "true")
                lines.append(f"    shell: {dq(self.shells[task_id])}")
        self.files["flow.yaml"] = "\n".join(lines) + "\n"


def load_both(text):
    """The document(s) as a YAML 1.2 reader (ruamel, safe) and a YAML 1.1 one (PyYAML) read them."""
    ruamel = YAML(typ="safe", pure=True)
    return list(ruamel.load_all(text)), list(yaml.safe_load_all(text))


def reach(graph):
    """node -> every node it waits for, directly or not."""
    memo = {}

    def up(node, path=()):
        if node in memo:
            return memo[node]
        found = set()
        for need in graph.get(node, []):
            found.add(need)
            found |= up(need)
        memo[node] = found
        return found
    return {node: up(node) for node in graph}


def github_evaluated(text):
    """The string Actions hands on for a value: the escape `${{ '${{' }}` evaluated, and None
    if any other expression would be evaluated."""
    out = text.replace("${{ '${{' }}", "\0")
    if "${{" in out:
        return None
    return out.replace("\0", "${{")


def retry_waits(retries, delay):
    return [min(delay * 2 ** attempt, 60) for attempt in range(retries)]


class Checker:
    def __init__(self, flowrun, say):
        self.flowrun = flowrun
        self.say = say
        self.counts = {"cases": 0, "github": 0, "argo": 0, "tasks": 0, "refused": 0}

    def export(self, folder, engine):
        extra = ["--image", "registry.example/flowrun:1"] if engine == "argo" else []
        if engine == "argo" and self.template:
            extra.append("--template")
        runs = [subprocess.run([self.flowrun, "export", "flow.yaml", "--to", engine] + extra, cwd=folder,
                               capture_output=True) for _ in range(2)]
        if runs[0].returncode != 0:
            return None, runs[0].stderr.decode(errors="replace")
        if runs[0].stdout != runs[1].stdout:
            self.say(f"{engine}: two exports of one file differ")
        return runs[0].stdout.decode(), runs[0].stderr.decode()

    def case(self, case, folder):
        self.counts["cases"] += 1
        self.template = case.rng.random() < 0.3
        for path, text in case.files.items():
            os.makedirs(os.path.dirname(os.path.join(folder, path)) or folder, exist_ok=True)
            with open(os.path.join(folder, path), "w", encoding="utf-8") as file:
                file.write(text)
        listed = subprocess.run([self.flowrun, "list", "--json", "flow.yaml"], cwd=folder, capture_output=True, text=True)
        if listed.returncode != 0:
            self.counts["refused"] += 1
            return None
        tasks = {t["id"]: t for t in json.loads(listed.stdout)}
        self.counts["tasks"] += len(tasks)
        out = {}
        for engine in ("github", "argo"):
            text, err = self.export(folder, engine)
            if text is None:
                self.say(f"{engine}: export refused a workflow `list` accepts: {err.strip()}")
                continue
            with open(os.path.join(folder, f"export-{engine}.yml"), "w", encoding="utf-8") as file:
                file.write(text)
            self.counts[engine] += 1
            (self.github if engine == "github" else self.argo)(case, tasks, text)
            out[engine] = os.path.join(folder, f"export-{engine}.yml")
        if case.outcomes and set(out) == {"github", "argo"}:
            self.outcome(case, tasks, folder, out)
        return out

    def outcome(self, case, tasks, folder, out):
        """The tasks a flowrun run (some tasks exit 1, --no-retry) runs against those each
        engine, simulated over the export with the same results, would run."""
        run = subprocess.run([self.flowrun, "run", "--no-retry", "--events", "jsonl", "flow.yaml"], cwd=folder,
                             capture_output=True, text=True)
        events = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
        ran = {e["task"] for e in events if e["event"] in ("task.succeeded", "task.failed")
               or (e["event"] == "task.skipped" and e.get("reason") == "up-to-date")}
        failing = {t for t in tasks if "exit 1" in self.shell_of(case, t)}
        self.counts["outcomes"] = self.counts.get("outcomes", 0) + 1
        for engine in ("github", "argo"):
            with open(out[engine], encoding="utf-8") as file:
                text = file.read()
            # An allowed failure (continue_on_error) exits 0 under `flowrun run --only`: its pod succeeds.
            exits_non_zero = {t for t in failing if not self.source_of(case, t).get("continue_on_error")}
            simulated = (simulate_github(text, failing, tasks) if engine == "github"
                         else simulate_argo(text, exits_non_zero, tasks))
            if simulated != ran:
                self.say(f"{engine}: with {sorted(failing)} failing, flowrun runs {sorted(ran)}, "
                         f"the export {sorted(simulated)} (only flowrun: {sorted(ran - simulated)}, "
                         f"only the export: {sorted(simulated - ran)})")

    def shell_of(self, case, task_id):
        base = task_id.split("[", 1)[0]
        return case.shells.get(base, "")

    def source_of(self, case, task_id):
        """The generated fields of a listed task (matrix combinations and included tasks map back)."""
        base = task_id.split("[", 1)[0]
        if base in case.tasks:
            return case.tasks[base]
        if base == "tools:on":
            return {"retries": 1}
        return {}

    # ------------------------------------------------------------ GitHub

    def github(self, case, tasks, text):
        say = self.say
        try:
            (doc12,), (doc11,) = load_both(text)
        except Exception as error:
            say(f"github: YAML readers refuse the export: {error}")
            return
        jobs = doc12.get("jobs", {})
        if doc12 != doc11:
            say("github: YAML 1.2 and YAML 1.1 readers read the export differently")
        if "on" not in doc12:
            say("github: no `on` key as YAML 1.2 reads it")
        seen = set()
        by_task = {}
        for job_id, job in jobs.items():
            if not isinstance(job_id, str) or not GITHUB_JOB.match(job_id):
                say(f"github: job id {job_id!r} is not valid")
            if str(job_id).lower() in seen:
                say(f"github: job id {job_id!r} repeats another without case")
            seen.add(str(job_id).lower())
            name = job.get("name")
            if name in by_task:
                say(f"github: two jobs named {name!r}")
            by_task[name] = (job_id, job)
        if len(tasks) > 256:
            self.github_grouped(doc12, tasks)
            return
        if set(by_task) != set(tasks):
            say(f"github: jobs {sorted(map(str, set(by_task) ^ set(tasks)))} differ from the tasks")
            return
        job_graph = {job_id: list(job.get("needs", []) if isinstance(job.get("needs", []), list) else [job["needs"]])
                     for job_id, job in jobs.items()}
        task_graph = {t: tasks[t]["needs"] for t in tasks}
        job_reach, task_reach = reach(job_graph), reach(task_graph)
        id_of = {task: job_id for task, (job_id, _) in by_task.items()}
        for task_id, task in tasks.items():
            job_id, job = by_task[task_id]
            mapped = {id_of[t] for t in task_reach[task_id]}
            if job_reach[job_id] != mapped:
                say(f"github: task {task_id!r} waits for {sorted(mapped)}, job {job_id} for {sorted(job_reach[job_id])}")
            direct = {id_of[t] for t in task["needs"]}
            if not direct <= set(job_graph[job_id]) and task["when"] == "success":
                say(f"github: job {job_id}'s needs {job_graph[job_id]} miss {sorted(direct)}")
            fields = self.source_of(case, task_id)
            expected_env = dict(fields.get("env") or {})
            # A matrix combination's job also sets its MATRIX_* variables (flowrun sets them too).
            actual_env = {k: v for k, v in (job.get("env") or {}).items()
                          if not ("matrix" in fields and str(k).startswith("MATRIX_"))}
            self.github_env(f"job {job_id}", expected_env, actual_env)
            steps = job.get("steps", [])
            run_step = next((s for s in steps if "--only" in s.get("run", "")), None)
            if run_step is None:
                if tasks[task_id]["kind"] != "group":
                    say(f"github: job {job_id} runs no flowrun step")
                continue
            retries = int(fields.get("retries", 0))
            delay = seconds(fields.get("retry_delay", "1s"))
            if "timeout" in fields:
                total = seconds(fields["timeout"]) * (retries + 1) + sum(retry_waits(retries, delay))
                if run_step.get("timeout-minutes") != math.ceil(total / 60):
                    say(f"github: task {task_id!r} timeout {fields['timeout']} x {retries + 1} attempts "
                        f"needs {math.ceil(total / 60)} minutes, the step has {run_step.get('timeout-minutes')}")
            elif "timeout-minutes" in run_step:
                say(f"github: task {task_id!r} has no timeout, its step has timeout-minutes")
            sleeps = [float(s) for s in re.findall(r"\) sleep ([0-9.]+) ;;", run_step["run"])]
            if retries and [round(s, 3) for s in sleeps] != [round(w, 3) for w in retry_waits(retries, delay)]:
                say(f"github: task {task_id!r} retries {retries} delay {delay}: sleeps {sleeps}")
            if not retries and sleeps:
                say(f"github: task {task_id!r} has no retries, its step sleeps")
            if bool(fields.get("continue_on_error")) != bool(job.get("continue-on-error")):
                say(f"github: task {task_id!r} continue_on_error {fields.get('continue_on_error')}, "
                    f"job {job.get('continue-on-error')}")
            only = re.findall(r"--only=(\S+)", run_step["run"])
            words = [w.strip("'\"") for w in only]
            if task_id not in words and f"'{task_id}'" not in run_step["run"]:
                say(f"github: job {job_id}'s step runs {only}, not {task_id!r}")
        self.github_env("workflow", dict(case.workflow_env), doc12.get("env") or {})
        name = doc12.get("name")
        if isinstance(name, str) and "${{" in name:
            say(f"github: workflow name {name!r} holds an expression")

    def github_grouped(self, doc, tasks):
        """Over 256 tasks: at most 256 jobs, each task in one, every need before it in its job
        or in a job its job waits for."""
        tasks_of = job_ids_of(doc)
        graph = {j: (job.get("needs", []) if isinstance(job.get("needs", []), list) else [job["needs"]])
                 for j, job in doc["jobs"].items()}
        if len(graph) > 256:
            self.say(f"github: {len(graph)} jobs, over 256")
        job_of, position = {}, {}
        for job_id, ran in tasks_of.items():
            for index, task in enumerate(ran):
                if task in job_of:
                    self.say(f"github: task {task!r} runs in jobs {job_of[task]} and {job_id}")
                job_of[task], position[task] = job_id, index
        if set(job_of) != set(tasks):
            self.say(f"github: grouped jobs run {sorted(set(job_of) ^ set(tasks))[:10]} unlike the tasks")
            return
        job_reach = reach(graph)
        for task_id, task in tasks.items():
            for need in task["needs"]:
                same = job_of[need] == job_of[task_id] and position[need] < position[task_id]
                if not same and job_of[need] not in job_reach[job_of[task_id]]:
                    self.say(f"github: task {task_id!r} needs {need!r}, but job {job_of[task_id]} does not wait for {job_of[need]}")

    def github_env(self, where, expected, actual):
        if set(map(str, actual)) != set(expected):
            self.say(f"github: {where} env keys {sorted(map(str, actual))}, expected {sorted(expected)}")
        for key, value in expected.items():
            got = actual.get(key)
            if not isinstance(got, str):
                self.say(f"github: {where} env {key}: {value!r} reads back as {got!r} ({type(got).__name__})")
                continue
            evaluated = github_evaluated(got)
            if evaluated is None:
                self.say(f"github: {where} env {key}: {got!r} is evaluated by Actions")
            elif evaluated != value:
                self.say(f"github: {where} env {key}: {value!r} reads back as {evaluated!r}")

    # ------------------------------------------------------------ Argo

    def argo(self, case, tasks, text):
        say = self.say
        try:
            docs12, docs11 = load_both(text)
        except Exception as error:
            say(f"argo: YAML readers refuse the export: {error}")
            return
        docs12 = [d for d in docs12 if d is not None]
        if docs12 != [d for d in docs11 if d is not None]:
            say("argo: YAML 1.2 and YAML 1.1 readers read the export differently")
        workflow = next(d for d in docs12 if d.get("kind") in ("Workflow", "WorkflowTemplate"))
        maps = {d["metadata"]["name"]: d for d in docs12 if d.get("kind") == "ConfigMap"}
        for name in maps:
            if len(name) > 253 or not DNS_SUBDOMAIN.match(name):
                say(f"argo: ConfigMap name {name!r} is no DNS-1123 subdomain")
        meta = workflow["metadata"]
        # Kubernetes cuts a generateName to 58 characters before adding its 5; Argo wants a
        # workflow name of at most 63 (it is a label value).
        base = meta.get("name") or meta.get("generateName", "")[:58] + "x" * 5
        if len(base) > 63 or not DNS_SUBDOMAIN.match(base):
            say(f"argo: workflow name {base!r} is no DNS-1123 name of at most 63")
        spec = workflow["spec"]
        templates = {t["name"]: t for t in spec["templates"]}
        dag = templates[spec["entrypoint"]]["dag"]["tasks"]
        names = [t["name"] for t in dag]
        if len(set(names)) != len(names) or len(set(templates)) != len(spec["templates"]):
            say("argo: a DAG task or template name repeats")
        for name in list(templates) + names:
            if not isinstance(name, str) or not ARGO_NAME.match(name) or len(name) > 63:
                say(f"argo: name {name!r} is not valid")
        graph = {}
        by_task = {}
        for dag_task in dag:
            expression = dag_task.get("depends", "")
            problem = expr_problem(expression, set(names))
            if problem:
                say(f"argo: DAG task {dag_task['name']}: depends {expression!r}: {problem}")
            graph[dag_task["name"]] = re.findall(r"([a-z0-9][-a-z0-9]*)\.(?:" + "|".join(RESULTS) + r")\b", expression)
            parameters = {p["name"]: p["value"] for p in (dag_task.get("arguments") or {}).get("parameters", [])}
            template = templates.get(dag_task["template"], {})
            if "task" in parameters:
                by_task[parameters["task"]] = dag_task
            else:
                only = [a[len("--only="):] for a in template.get("container", {}).get("args", []) if a.startswith("--only=")]
                if only and only[0] != "{{inputs.parameters.task}}":
                    by_task[only[0]] = dag_task
        if set(by_task) != set(tasks):
            say(f"argo: DAG tasks run {sorted(map(str, set(by_task) ^ set(tasks)))} unlike the tasks")
            return
        task_graph = {t: tasks[t]["needs"] for t in tasks}
        task_reach, dag_reach = reach(task_graph), reach(graph)
        for task_id, task in tasks.items():
            dag_task = by_task[task_id]
            mapped = {by_task[t]["name"] for t in task_reach[task_id]}
            got = dag_reach[dag_task["name"]] - {"flowrun-setup"}
            if got != mapped:
                say(f"argo: task {task_id!r} waits for {sorted(mapped)}, DAG task for {sorted(got)}")
            fields = self.source_of(case, task_id)
            template = templates[dag_task["template"]]
            retries = int(fields.get("retries", 0))
            strategy = template.get("retryStrategy")
            if retries:
                delay = seconds(fields.get("retry_delay", "1s"))
                if not strategy or str(strategy.get("limit")) != str(retries):
                    say(f"argo: task {task_id!r} retries {retries}, retryStrategy {strategy}")
                elif seconds(str(strategy["backoff"]["duration"])) != delay and delay >= 1:
                    say(f"argo: task {task_id!r} retry_delay {delay}s, backoff {strategy['backoff']}")
            elif strategy:
                say(f"argo: task {task_id!r} has no retries, its template has {strategy}")
            if "timeout" in fields:
                if template.get("activeDeadlineSeconds") != math.ceil(seconds(fields["timeout"])):
                    say(f"argo: task {task_id!r} timeout {fields['timeout']}, activeDeadlineSeconds "
                        f"{template.get('activeDeadlineSeconds')}")
            semaphores = [s["configMapKeyRef"] for s in (template.get("synchronization") or {}).get("semaphores", [])]
            if fields.get("queue"):
                if len(semaphores) != 1 or maps.get(semaphores[0]["name"], {}).get("data", {}).get(semaphores[0]["key"]) \
                        != str(case.queues[fields["queue"]]):
                    say(f"argo: task {task_id!r} in queue {fields['queue']!r}: semaphores {semaphores}")
        if case.concurrency and spec.get("parallelism") != case.concurrency:
            say(f"argo: concurrency {case.concurrency}, parallelism {spec.get('parallelism')}")


def job_ids_of(doc):
    """task id -> job id, and job id -> the task ids its step runs."""
    tasks_of = {}
    for job_id, job in doc["jobs"].items():
        run = " ".join(step.get("run", "") for step in job.get("steps", []))
        words = re.findall(r"--only=(?:'([^']*)'|\"([^\"]*)\"|(\S+))", run)
        tasks_of[job_id] = [(a or b or c).rstrip("'") for a, b, c in words]
    return tasks_of


def github_condition(condition, job_id, needs, result, ancestors):
    """A job-level `if:` as Actions evaluates it, for a run that nobody cancels."""
    expression = condition.strip()
    if expression.startswith("${{") and expression.endswith("}}"):
        expression = expression[3:-2]
    python = re.sub(r"needs\.([A-Za-z_][A-Za-z0-9_-]*)\.result\s*==\s*'([a-z]+)'",
                    lambda m: str(result[m.group(1)] == m.group(2)), expression)
    success = all(result[a] == "success" for a in ancestors)
    failure = any(result[a] == "failure" for a in ancestors)
    python = (python.replace("always()", "True").replace("cancelled()", "False")
              .replace("failure()", str(failure)).replace("success()", str(success)))
    python = re.sub(r"!(?!=)", " not ", python).replace("&&", " and ").replace("||", " or ")
    value = eval(python, {"__builtins__": {}}) if python.strip() else True  # noqa: S307 - True/False/and/or/not
    if not re.search(r"\b(always|cancelled|failure|success)\(\)", expression):
        value = value and success  # Actions adds success() where no status function is named
    return value


def simulate_github(text, failing, tasks):
    doc = yaml.safe_load(text)
    tasks_of = job_ids_of(doc)
    graph = {j: (job.get("needs", []) if isinstance(job.get("needs", []), list) else [job["needs"]])
             for j, job in doc["jobs"].items()}
    ancestors = reach(graph)
    result, ran = {}, set()
    pending = list(graph)
    while pending:
        ready = [j for j in pending if all(n in result for n in graph[j])]
        for job_id in ready:
            pending.remove(job_id)
            job = doc["jobs"][job_id]
            if github_condition(str(job.get("if", "")), job_id, graph[job_id], result, ancestors[job_id]):
                ran |= set(tasks_of[job_id])
                bad = [t for t in tasks_of[job_id] if t in failing]
                result[job_id] = "failure" if bad and not job.get("continue-on-error") else "success"
            else:
                result[job_id] = "skipped"
    return ran


def simulate_argo(text, failing, tasks):
    docs = [d for d in yaml.safe_load_all(text) if d]
    workflow = next(d for d in docs if d.get("kind") in ("Workflow", "WorkflowTemplate"))
    templates = {t["name"]: t for t in workflow["spec"]["templates"]}
    dag = templates[workflow["spec"]["entrypoint"]]["dag"]["tasks"]
    task_of = {}
    for dag_task in dag:
        parameters = {p["name"]: p["value"] for p in (dag_task.get("arguments") or {}).get("parameters", [])}
        args = templates[dag_task["template"]].get("container", {}).get("args", [])
        only = [a[len("--only="):] for a in args if a.startswith("--only=") and "{{" not in a]
        task_of[dag_task["name"]] = parameters.get("task") or (only[0] if only else None)
    graph = {t["name"]: re.findall(r"([a-z0-9][-a-z0-9]*)\.(?:" + "|".join(RESULTS) + r")\b", t.get("depends", ""))
             for t in dag}
    phase, ran = {}, set()
    pending = [t["name"] for t in dag]
    by_name = {t["name"]: t for t in dag}
    while pending:
        ready = [n for n in pending if all(m in phase for m in graph[n])]
        for name in ready:
            pending.remove(name)
            dag_task = by_name[name]
            expression = dag_task.get("depends", "")
            go = str(dag_task.get("when", "true")) != "false"
            if go and expression:
                python = re.sub(r"([a-z0-9][-a-z0-9]*)\.(" + "|".join(RESULTS) + r")\b",
                                lambda m: str(phase[m.group(1)] == m.group(2)), expression)
                go = eval(python.replace("&&", " and ").replace("||", " or ").replace("!", " not "),
                          {"__builtins__": {}})  # noqa: S307
            if not go:
                phase[name] = "Skipped" if str(dag_task.get("when", "true")) == "false" else "Omitted"
                continue
            task = task_of[name]
            if task is not None:
                ran.add(task)
            phase[name] = "Failed" if task in failing else "Succeeded"
    return ran


def expr_problem(expression, names):
    """Why Argo's evaluator (expr, with `-` read as `_`) would not evaluate a depends, or None."""
    if not expression:
        return None
    evaluated = expression.replace("-", "_")
    for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", evaluated):
        if word in KEYWORDS:
            return f"{word!r} is a word of Argo's expression language, not a task"
    underscored = {n.replace("-", "_") for n in names}
    if len(underscored) != len(names):
        return "two DAG task names read the same with - as _"
    tokens = re.findall(r"\(|\)|&&|\|\||!|[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z]+|\S", evaluated)
    depth = 0
    for token in tokens:
        depth += token == "("
        depth -= token == ")"
        if depth < 0:
            return "unbalanced parentheses"
        if "." in token:
            task, result = token.split(".")
            if result not in RESULTS or task not in underscored:
                return f"{token} names no DAG task result"
        elif token not in ("(", ")", "&&", "||", "!"):
            return f"unexpected {token!r}"
    return None if depth == 0 else "unbalanced parentheses"


def schema_and_lint(paths, say):
    for start in range(0, len(paths), 100):
        chunk = paths[start:start + 100]
        schema = subprocess.run(["check-jsonschema", "--builtin-schema", "vendor.github-workflows"] + chunk,
                                capture_output=True, text=True)
        if schema.returncode != 0:
            say(f"github: check-jsonschema: {schema.stdout.strip()[:2000]}")
        if shutil.which("actionlint"):
            lint = subprocess.run(["actionlint", "-no-color"] + chunk, capture_output=True, text=True)
            if lint.returncode != 0 or lint.stdout.strip():
                say(f"github: actionlint: {lint.stdout.strip()[:2000]}")


# ---------------------------------------------------------------- reports (issue 21)

REPORT_IDS = ["build", "a.b-c_d", "1st.setup", "-x", "on", "x" * 64, "test.unit", "Build", "_u", "GH-12", "abc1234def"]
REPORT_NAMES = ["demo", "<script>alert(1)</script>", "a | b", "*bold* _it_ `code`", "caf\u00e9 \U0001F600", "x" * 300,
                "]]> & <!-- -->", "line\u2028sep", "@here #1 :x:"]
OUTPUT_LINES = [r"line | pipe", r"</script><script>alert(2)</script>", r"\033[31mred\033[0m", r"bad utf8: \377\376 end",
                r"ctl: \001\002\013\014\177 end", r"]]> & <x> \"q\" 'a'", r"| --- | --- |", r"crlf\r", r"emoji \360\237\230\200",
                r"<details><summary>x", r"    indented code", r"# heading", r"```"]
EARLIER = ["", "z" * ((1 << 20) - 3000) + "\n", "earlier step\n", "no newline at end", "| a | b |\n|---|---|\n| 1 | 2 |", "<details>\n<summary>open", "x\r\n"]


def report_case(rng):
    ids = rng.sample(REPORT_IDS, rng.randint(2, 6))
    lines = ["version: 1", f"name: {dq(rng.choice(REPORT_NAMES))}", "fail_fast: false", "tasks:"]
    for index, task_id in enumerate(ids):
        lines.append(f"  {dq(task_id)}:")
        earlier = ids[:index]
        if earlier and rng.random() < 0.4:
            lines.append(f"    needs: {json.dumps(rng.sample(earlier, 1))}")
            lines.append(f"    when: {rng.choice(['success', 'always', 'always'])}")
        if rng.random() < 0.3:
            lines.append(f"    retries: {rng.randint(1, 2)}")
            lines.append("    retry_delay: 10ms")
        if rng.random() < 0.2:
            lines.append("    continue_on_error: true")
        printed = rng.sample(OUTPUT_LINES, rng.randint(0, 4))
        script = "".join(f"printf '%b\\n' {shell_quote(line)}; " for line in printed)
        if rng.random() < 0.2:
            script += "head -c 3000 /dev/zero | tr '\\0' y; echo; "
        script += rng.choice(["exit 0", "exit 0", "exit 1", "exit 7"])
        lines.append(f"    shell: {dq(script)}")
    return "\n".join(lines) + "\n", ids


def shell_quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


def cell_text(html):
    """A summary cell's text as GitHub shows it."""
    import html as html_module
    text = re.sub(r"<br>", "\n", html)
    text = re.sub(r"</?(code|pre|wbr)>", "", text)
    return html_module.unescape(text)


def check_reports(flowrun, rng, folder, say, counts):
    from markdown_it import MarkdownIt
    text, ids = report_case(rng)
    with open(os.path.join(folder, "flow.yaml"), "w", encoding="utf-8") as file:
        file.write(text)
    earlier = rng.choice(EARLIER)
    summary = os.path.join(folder, "summary.md")
    with open(summary, "w", encoding="utf-8", newline="") as file:
        file.write(earlier)
    env = dict(os.environ, GITHUB_ACTIONS="true", GITHUB_STEP_SUMMARY=summary)
    run = subprocess.run([flowrun, "run", "--events", "jsonl", "--report-html", "t.html", "--trace", "t.json",
                          "--junit", "j.xml", "flow.yaml"], cwd=folder, env=env, capture_output=True)
    events = [json.loads(line) for line in run.stdout.decode(errors="replace").split("\n") if line.startswith("{")]
    counts["reports"] += 1
    failed = [e["task"] for e in events if e.get("event") == "task.failed"]
    attempts = {}
    for e in events:
        if e.get("event") == "task.started":
            attempts[e["task"]] = attempts.get(e["task"], 0) + 1
    # Job summary: appended after the earlier text, under 1 MiB, a table GitHub reads.
    with open(summary, "rb") as file:
        written = file.read()
    if not written.startswith(earlier.encode()):
        say("summary: the earlier text is not kept as it was")
    if len(written) >= 1 << 20:
        say(f"summary: {len(written)} bytes, over GitHub's 1 MiB")
    markdown = MarkdownIt("commonmark").enable("table")
    tokens = markdown.parse(written.decode("utf-8", errors="replace"))
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    if not any("flowrun:" in h for h in headings):
        say(f"summary: no flowrun heading after {earlier!r}: headings {headings}")
    rows, cells, row = [], [], None
    in_table = False
    for token in tokens:
        if token.type == "table_open":
            in_table = True
            rows = []
        if token.type == "table_close":
            in_table = False
        if in_table and token.type == "tr_open":
            row = []
        if in_table and token.type == "inline" and row is not None:
            row.append(token.content)
        if in_table and token.type == "tr_close":
            rows.append(row)
            row = None
    if failed:
        if not rows or not rows[0][0].startswith("Failed"):
            say(f"summary: no table of failed tasks (failed: {failed})")
        else:
            body = rows[1:]
            if any(len(r) != 4 for r in body):
                say(f"summary: a row has not 4 cells: {[len(r) for r in body]}")
            shown = [cell_text(r[0]) for r in body]
            in_file_order = [t for t in ids if t in failed]
            if shown != in_file_order:
                say(f"summary: the table names {shown}, the run failed {in_file_order} (in file order)")
    elif rows and rows[0][0].startswith("Failed"):
        say("summary: a table of failed tasks for a run without failures")
    # Trace: the format, one slice per attempt.
    try:
        with open(os.path.join(folder, "t.json"), encoding="utf-8") as file:
            trace = json.load(file)
        slices = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
        per_task = {}
        for e in slices:
            if not all(isinstance(e.get(k), int) and not isinstance(e.get(k), bool) for k in ("pid", "tid", "ts", "dur")):
                say(f"trace: slice {e.get('name')!r} has non-integer pid/tid/ts/dur")
            per_task[e["args"]["task"]] = per_task.get(e["args"]["task"], 0) + 1
        if per_task != attempts:
            say(f"trace: slices per task {per_task}, attempts {attempts}")
        tracks = {}
        for e in slices:
            tracks.setdefault(e["tid"], []).append(e)
        named = {e["tid"] for e in trace["traceEvents"] if e.get("ph") == "M" and e.get("name") == "thread_name"}
        for tid, events in tracks.items():
            if tid not in named:
                say(f"trace: track {tid} has no thread_name")
            events.sort(key=lambda e: e["ts"])
            for left, right in zip(events, events[1:]):
                if left["ts"] + left["dur"] > right["ts"]:
                    say(f"trace: {left['name']!r} overlaps {right['name']!r} on track {tid}")
    except Exception as error:
        say(f"trace: {error!r}")
    # HTML: well-formed enough for a browser, no markup from names or output.
    with open(os.path.join(folder, "t.html"), encoding="utf-8", errors="replace") as file:
        page = file.read()
    if len(re.findall(r"<script\b", page, re.I)) != 2 or len(re.findall(r"</script", page, re.I)) != 2:
        say("html: names or output made script tags")
    data = re.search(r'<script type="application/json" id="run-data">(.*?)</script>', page, re.S)
    try:
        json.loads(data.group(1))
    except Exception as error:
        say(f"html: the run data does not parse: {error!r}")
    # JUnit: the repo's XSD check, and every task a testcase.
    junit = subprocess.run([sys.executable, "Tests/FlowConsoleTests/validate_junit.py", "Tests/FlowConsoleTests/junit-10.xsd",
                            os.path.join(folder, "j.xml")], capture_output=True, text=True,
                           cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if junit.returncode != 0:
        say(f"junit: {junit.stdout.strip()} {junit.stderr.strip()[-500:]}")
    else:
        import xml.etree.ElementTree as ElementTree
        names = [c.get("name") for c in ElementTree.parse(os.path.join(folder, "j.xml")).iter("testcase")]
        if sorted(names) != sorted(ids):
            say(f"junit: testcases {names}, tasks {ids}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--flowrun", required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--keep", help="keep the cases' folders under this folder")
    parser.add_argument("--reports", type=int, default=0, help="also this many runs whose reports are checked")
    args = parser.parse_args()
    flowrun = os.path.abspath(args.flowrun)
    rng = random.Random(args.seed)
    problems = []
    root = args.keep or tempfile.mkdtemp(prefix="exportpeer-")
    current = {"case": None}

    def say(text):
        problems.append(f"case {current['case']}: {text}")
        print(problems[-1], flush=True)

    checker = Checker(flowrun, say)
    github_files = []
    for number in range(args.cases):
        current["case"] = number
        folder = os.path.join(root, f"case-{number}")
        os.makedirs(folder, exist_ok=True)
        exported = checker.case(Case(rng), folder)
        if exported and "github" in exported:
            github_files.append(exported["github"])
    current["case"] = "all"
    schema_and_lint(github_files, say)
    checker.counts["reports"] = 0
    for number in range(args.reports):
        current["case"] = f"report {number}"
        folder = os.path.join(root, f"report-{number}")
        os.makedirs(folder, exist_ok=True)
        check_reports(flowrun, rng, folder, say, checker.counts)
    if not args.keep:
        shutil.rmtree(root)
    counts = checker.counts
    print(f"{counts['cases']} cases ({counts['refused']} refused by flowrun as invalid), {counts['tasks']} tasks, "
          f"{counts['github']} GitHub and {counts['argo']} Argo exports ({counts.get('outcomes', 0)} run and simulated), "
          f"{counts['reports']} runs' reports: {len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
