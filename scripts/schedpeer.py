#!/usr/bin/env python3
"""Scheduling and task lifecycle of the real flowrun binary against a model of the spec.

Usage:
  python3 scripts/schedpeer.py [--flowrun .build/release/flowrun] [--seed N] [--cases 60]
                               [--case K] [--quick] [--keep] [--verbose]

Each case writes a random workflow of 5-60 shell tasks: random `needs` (across queues too),
named queues with `concurrency`, a global `-j`, `priority`, tasks that exit 1-255, `retries`
with a small `retry_delay`, `timeout`, `continue_on_error` and `when: success|failure|always`;
it runs it with or without `--keep-going`, and now and then sends SIGINT once a chosen task has
started (its go signal is a file the task creates, no sleeps). Every task appends `start ID`
and `end ID` to one shared log with O_APPEND (one short write each) and runs until a go file
appears (never, here) or for a few tens of milliseconds. From the log and `--events jsonl` the
case is replayed through a model of the scheduler written from the spec and README:
- never more tasks running than -j, nor more in a queue than its limit (log and events);
- each task.started is the most urgent ready task with a free slot (priority, then file order)
  and comes after every need ended in a state its `when` accepts; at -j 1 with every task
  succeeding the run's start order is `--dry-run`'s numbering;
- each final state (succeeded, failed, allowed failure, skipped, cancelled) is the model's:
  deterministic with --keep-going, replayed against the observed failures under fail-fast;
  attempts = 1 + retries for a task that always fails (under --keep-going); a timeout fails
  as `timed out after ...` and leaves no child;
- each task's events form one lifecycle (ready, started, retrying..., exactly one final event),
  every line validates against schemas/events.schema.json (when python3-jsonschema is there),
  seq has no gaps, workflow.finished's status and counts match the events, and the exit status
  is the contract's (0, 1, 130);
- no process carrying the case's marker outlives flowrun.
A difference is printed with the case number and the seed; `--case K --keep` keeps its folder.
"""

import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PRIORITIES = ["very-low", "low", "normal", "high", "very-high"]
RANK = {name: rank for rank, name in enumerate(PRIORITIES)}
STATS = {"interrupted": 0, "cleanup after a cancel": 0, "retries": 0, "timeouts": 0, "skips": 0}
FINAL = {"task.succeeded", "task.failed", "task.cancelled", "task.skipped"}
LONG_TICKS = 400  # 0.05 s each: a task that waits for a cancel or a timeout


def make_case(rng, index, quick=False):
    """A random workflow as a dict of plain values, plus how to run it. `quick`: tasks end at
    once (no ticks), so that starts, ends and signals crowd together."""
    count = rng.randint(5, 60)
    queues = {f"q{n}": rng.randint(1, 3) for n in range(rng.randint(0, 3))}
    tasks = []
    for n in range(count):
        task = {"id": f"t{n:02d}", "needs": [], "when": "success", "queue": None, "priority": "normal",
                "exit": 0, "retries": 0, "timeout": False, "allowed": False,
                "ticks": 0 if quick else rng.randint(0, 3)}
        if n and rng.random() < 0.6:
            task["needs"] = sorted(rng.sample(range(n), min(n, rng.choice([1, 1, 2, 3]))))
        if task["needs"] and rng.random() < 0.25:
            task["when"] = rng.choice(["failure", "always"])
        if queues and rng.random() < 0.5:
            task["queue"] = rng.choice(sorted(queues))
        if rng.random() < 0.4:
            task["priority"] = rng.choice(PRIORITIES)
        roll = rng.random()
        if roll < 0.15:
            task["exit"] = rng.randint(1, 255)
        elif roll < 0.19:
            task["timeout"] = True
            task["ignore_term"] = rng.random() < 0.3  # then SIGKILL after the grace
        elif roll < 0.22:
            task["signal"] = rng.choice(["KILL", "TERM", "INT", "SEGV", "HUP"])
        if (task["exit"] or task["timeout"] or task.get("signal")) and rng.random() < 0.4:
            task["retries"] = rng.randint(1, 2)
        if rng.random() < 0.12:
            task["allowed"] = True
        task["child"] = task["timeout"] or rng.random() < 0.3
        if task["needs"] and rng.random() < 0.08:
            # A group task: no action; it succeeds once its `when` is met.
            task.update(group=True, exit=0, timeout=False, retries=0, allowed=False)
            task.pop("signal", None)
        tasks.append(task)
    case = {"index": index, "tasks": tasks, "queues": queues, "jobs": rng.choice([1, 1, 2, 3, 4, 8]),
            "keep_going": rng.random() < 0.5, "interrupt": None, "defaults": {},
            # How -j and --keep-going are given: on the command line, or in the file.
            "jobs_in_file": rng.random() < 0.3, "keep_going_in_file": rng.random() < 0.3}
    if rng.random() < 0.3:
        defaults = case["defaults"]
        if rng.random() < 0.5:
            defaults["priority"] = rng.choice(PRIORITIES)
        if queues and rng.random() < 0.4:
            defaults["queue"] = rng.choice(sorted(queues))
        if rng.random() < 0.3:
            defaults["retries"] = 1
        # Tasks that set none of these take the default.
        for task in tasks:
            for key, value in defaults.items():
                if rng.random() < 0.6 and not (key == "retries" and task.get("group")):
                    task[key] = value
                    task.setdefault("from_defaults", set()).add(key)
    if rng.random() < 0.35:
        # Interrupt once a plain task (not a cleanup one, which a cancel leaves alone) has started.
        candidates = [t for t in tasks if t["when"] == "success" and not t["timeout"] and not t.get("group")]
        if candidates:
            target = rng.choice(candidates)
            if rng.random() < 0.3:
                # Fails at once and waits 30 s to retry: the SIGINT comes during the attempt or
                # its back-off; either way the task ends cancelled.
                target.update(exit=rng.randint(1, 255), retries=2, ticks=0, backoff=True, allowed=False, signal=None)
            else:
                target.update(exit=0, ticks=LONG_TICKS, signal=None)
            target.get("from_defaults", set()).discard("retries")
            case["interrupt"] = target["id"]
            case["signal"] = rng.choice(["INT", "INT", "TERM"])
    if rng.random() < 0.2:
        # Pause (SIGUSR1) once this task has started, resume (SIGUSR2) once it has ended.
        candidates = [t for t in tasks if t["id"] != case["interrupt"] and not t.get("group") and not t["timeout"]]
        if candidates:
            case["pause"] = rng.choice(candidates)["id"]
    return case


def shell_body(task, need_ids):
    ticks = LONG_TICKS if task["timeout"] else task["ticks"]
    # A child left in the task's group, whose pid its dependents check: gone once the task ended.
    child = 'sleep 30 & echo $! > "$SP_DIR/child.$FLOWRUN_TASK"; ' if task.get("child") else ''
    alive = "".join(
        f'f="$SP_DIR/child.{need}"; if [ -e "$f" ]; then p=$(cat "$f"); '
        f's=$(cut -d" " -f3 /proc/$p/stat 2>/dev/null || true); '
        f'if [ "$s" = Z ]; then printf "zombie {need}\\n" >> "$SP_DIR/log"; '
        f'elif [ -n "$s" ]; then printf "alive {need}\\n" >> "$SP_DIR/log"; fi; fi; ' for need in need_ids)
    ending = f"trap - TERM; kill -s {task['signal']} $$" if task.get("signal") else f"exit {task['exit']}"
    trap = "trap 'printf \"end %s\\n\" \"$FLOWRUN_TASK\" >> \"$SP_DIR/log\"; exit 143' TERM; "
    if task.get("ignore_term"):
        trap = "trap 'printf \"term %s\\n\" \"$FLOWRUN_TASK\" >> \"$SP_DIR/log\"' TERM; "
    return (trap + alive +
            "printf 'start %s\\n' \"$FLOWRUN_TASK\" >> \"$SP_DIR/log\"; "
            ": > \"$SP_DIR/started.$FLOWRUN_TASK\"; " + child +
            f"i=0; while [ ! -e \"$SP_DIR/go\" ] && [ $i -lt {ticks} ]; do sleep 0.05; i=$((i+1)); done; "
            "printf 'end %s\\n' \"$FLOWRUN_TASK\" >> \"$SP_DIR/log\"; " + ending)


def write_workflow(case, path):
    lines = ["version: 1", f"name: case{case['index']}"]
    if case["jobs_in_file"]:
        lines.append(f"concurrency: {case['jobs']}")
    if case["keep_going_in_file"]:
        lines.append(f"fail_fast: {'false' if case['keep_going'] else 'true'}")
    if case["defaults"]:
        lines.append("defaults:")
        for key, value in case["defaults"].items():
            lines.append(f"  {key}: {value}")
    if case["queues"]:
        lines.append("queues:")
        for name, limit in case["queues"].items():
            lines.append(f"  {name}: {{ concurrency: {limit} }}")
    lines.append("tasks:")
    for task in case["tasks"]:
        lines.append(f"  {task['id']}:")
        if not task.get("group"):
            lines.append("    shell: " + json.dumps(shell_body(task, [case["tasks"][n]["id"] for n in task["needs"]])))
        if task["needs"]:
            lines.append("    needs: [" + ", ".join(case["tasks"][n]["id"] for n in task["needs"]) + "]")
        if task["when"] != "success":
            lines.append(f"    when: {task['when']}")
        inherited = task.get("from_defaults", set())
        defaults = case["defaults"]
        if task["queue"] and "queue" not in inherited:
            lines.append(f"    queue: {task['queue']}")
        elif task["queue"] is None and "queue" in defaults:
            task["queue"] = defaults["queue"]  # no way to opt out of a default queue
        if "priority" not in inherited and (task["priority"] != "normal" or "priority" in defaults):
            lines.append(f"    priority: {task['priority']}")
        if not task.get("group"):
            if "retries" not in inherited and (task["retries"] or "retries" in defaults):
                lines.append(f"    retries: {task['retries']}")
            if task["retries"]:
                lines.append("    retry_delay: " + ("30s" if task.get("backoff") else "20ms"))
        if task["timeout"]:
            lines.append("    timeout: 300ms")
        if task["allowed"]:
            lines.append("    continue_on_error: true")
    with open(path, "w") as out:
        out.write("\n".join(lines) + "\n")


# MARK: the model


class Model:
    """The scheduler of the spec, replayed along the observed events."""

    def __init__(self, case):
        self.case = case
        self.tasks = case["tasks"]
        self.index = {t["id"]: n for n, t in enumerate(self.tasks)}
        self.limit = {name: limit for name, limit in case["queues"].items()}
        self.state = {}          # id -> final state: succeeded, failed, allowed, skipped, cancelled
        self.upstream_failed = {}  # id -> a need failed, or was skipped because of a failure
        self.started = set()
        self.running = {}        # id -> queue
        self.saw_failure = False
        self.cancelled = False

    def need_ids(self, task):
        return [self.tasks[n]["id"] for n in task["needs"]]

    def when_met(self, task):
        """None while a need has not ended; else True or False (the `when` decision)."""
        needs = self.need_ids(task)
        if any(need not in self.state for need in needs):
            return None
        if task["when"] == "always":
            return True
        if task["when"] == "failure":
            return any(self.state[n] == "failed" or (self.state[n] == "skipped" and self.upstream_failed.get(n))
                       for n in needs)
        return all(self.state[n] in ("succeeded", "allowed") for n in needs)

    def may_start(self, task):
        """Whether the model lets the task start now (ignoring slots)."""
        if task["id"] in self.started or task["id"] in self.state:
            return False
        if self.when_met(task) is not True:
            return False
        if self.cancelled and task["when"] != "always":
            return False
        if self.saw_failure and not self.case["keep_going"] and task["when"] == "success":
            return False
        return True

    def slot_free(self, task):
        if len(self.running) >= self.case["jobs"]:
            return False
        queue = task["queue"]
        return queue is None or sum(1 for q in self.running.values() if q == queue) < self.limit[queue]

    def best_startable(self, announced=None):
        """The most urgent task that may start now; among those whose task.ready was seen, if
        given (a group task's end reaches the scheduler after the starts of its batch)."""
        candidates = [t for t in self.tasks if self.may_start(t) and self.slot_free(t)
                      and (announced is None or t["id"] in announced)]
        if not candidates:
            return None
        return min(candidates, key=lambda t: (-RANK[t["priority"]], self.index[t["id"]]))["id"]

    def end(self, task_id, final):
        self.state[task_id] = final
        self.running.pop(task_id, None)
        task = self.tasks[self.index[task_id]]
        if final == "failed":
            self.saw_failure = True
        if final == "skipped":
            met = self.when_met(task)
            self.upstream_failed[task_id] = bool(met is False and any(
                self.state[n] == "failed" or (self.state[n] == "skipped" and self.upstream_failed.get(n))
                for n in self.need_ids(task))) and not self.cancelled


def designed_outcome(task):
    if task["exit"] or task["timeout"] or task.get("signal"):
        return "allowed" if task["allowed"] else "failed"
    return "succeeded"


def keep_going_states(case):
    """Final states of a run with --keep-going and no cancel: fully decided by the graph."""
    model = Model(dict(case, keep_going=True))
    for task in case["tasks"]:  # needs come earlier in the file
        met = model.when_met(task)
        model.end(task["id"], designed_outcome(task) if met else "skipped")
    return model.state


def keep_going_like_all_succeed(case, task_id):
    """Whether the task runs when every task succeeds (not a `when: failure` one left out)."""
    states = keep_going_states(dict(case, tasks=[dict(t, exit=0, timeout=False, signal=None) for t in case["tasks"]]))
    return states[task_id] == "succeeded"


def dry_run_order(case):
    """The -j 1 start order when every task succeeds: what --dry-run should number."""
    model = Model(dict(case, jobs=1, keep_going=True))
    order = []
    while len(model.state) < len(case["tasks"]):
        # Settle skips first (a task whose `when` cannot be met), as the scheduler does.
        changed = True
        while changed:
            changed = False
            for task in case["tasks"]:
                if task["id"] not in model.state and model.when_met(task) is False:
                    model.end(task["id"], "skipped")
                    order.append(task["id"])
                    changed = True
        best = model.best_startable()
        if best is None:
            break
        order.append(best)
        model.end(best, "succeeded")
    return order


# MARK: checks


def check_case(case, events, log_lines, status, dry_order, problems):
    tasks = case["tasks"]
    ids = [t["id"] for t in tasks]
    by_id = {t["id"]: t for t in tasks}
    model = Model(case)

    # seq without gaps, schema, one workflow.started first and workflow.finished last.
    for n, event in enumerate(events, 1):
        if event.get("seq") != n:
            problems.append(f"seq {event.get('seq')} at line {n}")
            break
    if not events or events[0]["event"] != "workflow.started" or events[-1]["event"] != "workflow.finished":
        problems.append("stream does not start with workflow.started and end with workflow.finished")
        return

    # Lifecycle per task, replayed through the model.
    phase = {i: "pending" for i in ids}
    attempts = {i: 0 for i in ids}
    final_event = {}
    max_running = 0
    max_queue = {}
    first_failure = None
    retry_time = {}
    suspended = False
    for event in events:
        name = event["event"]
        task_id = event.get("task")
        if name == "workflow.cleanup" or name == "task.cancelled":
            model.cancelled = True  # the cancel came before this line
        if name == "workflow.cleanup":
            suspended = False  # the cancel lifts a suspension, so that cleanup starts
            continue
        if name in ("queue.suspended", "queue.resumed"):
            suspended = name == "queue.suspended"
            continue
        if name == "task.started" and suspended:
            problems.append(f"{task_id}: attempt {event['attempt']} started while the queues were suspended")
        if name == "task.failed" and not event["allowed"] and first_failure is None:
            first_failure = event["seq"]
        if task_id is None:
            continue
        if task_id not in phase:
            problems.append(f"event for unknown task {task_id}")
            continue
        task = by_id[task_id]
        here = phase[task_id]
        if here == "final":
            problems.append(f"{task_id}: {name} after its final event")
            continue
        if name == "task.ready":
            if here != "pending":
                problems.append(f"{task_id}: task.ready in phase {here}")
            elif model.when_met(task) is not True:
                problems.append(f"{task_id}: ready before its needs ended in a state its when ({task['when']}) accepts: "
                                + ", ".join(f"{n}={model.state.get(n, 'not ended')}" for n in model.need_ids(task)))
            phase[task_id] = "ready"
        elif name == "task.started" or (name == "task.succeeded" and task.get("group")):
            attempt = event.get("attempt", 1)
            if name == "task.started" and task.get("group"):
                problems.append(f"{task_id}: a group task has task.started")
            if attempt == 1:
                if here != "ready":
                    problems.append(f"{task_id}: started in phase {here}")
                if not model.may_start(task):
                    problems.append(f"{task_id}: started though the model would not start it "
                                    f"(failure seen {model.saw_failure}, cancelled {model.cancelled}, needs "
                                    + ", ".join(f"{n}={model.state.get(n, 'not ended')}" for n in model.need_ids(task)) + ")")
                elif not model.slot_free(task):
                    problems.append(f"{task_id}: started with no free slot (running {sorted(model.running)})")
                else:
                    best = model.best_startable({i for i, p in phase.items() if p == "ready"})
                    if best != task_id:
                        problems.append(f"{task_id}: started while {best} was more urgent "
                                        f"({by_id[best]['priority']}, file order)")
                model.started.add(task_id)
                model.running[task_id] = task["queue"]
                max_running = max(max_running, len(model.running))
                if task["queue"]:
                    in_queue = sum(1 for q in model.running.values() if q == task["queue"])
                    max_queue[task["queue"]] = max(max_queue.get(task["queue"], 0), in_queue)
            elif here != "retrying" or attempt != attempts[task_id] + 1:
                problems.append(f"{task_id}: attempt {attempt} started in phase {here}")
            elif model.cancelled and task["when"] != "always":
                problems.append(f"{task_id}: attempt {attempt} started after the run was cancelled")
            elif stamp(event["time"]) - retry_time[task_id][0] < retry_time[task_id][1] - 2:
                problems.append(f"{task_id}: attempt {attempt} started "
                                f"{stamp(event['time']) - retry_time[task_id][0]} ms after its "
                                f"{retry_time[task_id][1]} ms back-off began")
            elif model.saw_failure and not case["keep_going"] and task["when"] == "success":
                problems.append(f"{task_id}: attempt {attempt} started after a failure under fail_fast")
            attempts[task_id] = attempt
            phase[task_id] = "executing"
            if name == "task.succeeded":
                final_event[task_id] = event
                phase[task_id] = "final"
                model.end(task_id, "succeeded")
        elif name in ("task.output", "task.progress"):
            if here != "executing":
                problems.append(f"{task_id}: {name} in phase {here}")
        elif name == "task.retrying":
            if here != "executing" or event["attempt"] != attempts[task_id]:
                problems.append(f"{task_id}: retrying attempt {event['attempt']} in phase {here}")
            if not task["retries"] or attempts[task_id] > task["retries"]:
                problems.append(f"{task_id}: retrying attempt {event['attempt']} with retries {task['retries']}")
            first = 30000 if task.get("backoff") else 20
            nominal = min(first << (event["attempt"] - 1), 60000)
            if not (int(nominal * 0.75) <= event["delay_ms"] <= min(-(-nominal * 5 // 4), 60000)):
                problems.append(f"{task_id}: retry delay {event['delay_ms']} ms after attempt {event['attempt']}, "
                                f"documented {nominal} ms +-25%")
            retry_time[task_id] = (stamp(event["time"]), event["delay_ms"])
            phase[task_id] = "retrying"
        elif name in FINAL:
            final_event[task_id] = event
            phase[task_id] = "final"
            if name == "task.skipped":
                if task_id in model.started:
                    problems.append(f"{task_id}: skipped after it started")
                elif model.may_start(task) and not model.cancelled and case["interrupt"] is None:
                    problems.append(f"{task_id}: skipped ({event['reason']}) though its when is met")
                elif (case["interrupt"] is not None and task["when"] == "always" and model.when_met(task)):
                    problems.append(f"{task_id}: a when: always task skipped ({event['reason']}) after its needs ended")
                model.end(task_id, "skipped")
            elif name == "task.cancelled":
                if task_id not in model.started:
                    problems.append(f"{task_id}: cancelled though it never started")
                if case["interrupt"] is None:
                    problems.append(f"{task_id}: cancelled in a run nobody interrupted")
                model.end(task_id, "cancelled")
            else:
                if here not in ("executing", "retrying"):
                    problems.append(f"{task_id}: {name} in phase {here}")
                if event["attempts"] != attempts[task_id]:
                    problems.append(f"{task_id}: {name} says attempts {event['attempts']}, started {attempts[task_id]}")
                if name == "task.succeeded":
                    model.end(task_id, "succeeded")
                else:
                    model.end(task_id, "allowed" if event["allowed"] else "failed")

    for task_id in ids:
        if task_id not in final_event:
            problems.append(f"{task_id}: no final event")

    # Limits, from the events and from the tasks' own log.
    if max_running > case["jobs"]:
        problems.append(f"events: {max_running} tasks running at once with -j {case['jobs']}")
    for queue, most in max_queue.items():
        if most > case["queues"][queue]:
            problems.append(f"events: {most} running in queue {queue} (concurrency {case['queues'][queue]})")
    running, log_starts, zombies = set(), {}, set()
    for line in log_lines:
        word, _, task_id = line.partition(" ")
        if word == "start":
            running.add(task_id)
            log_starts[task_id] = log_starts.get(task_id, 0) + 1
            if len(running) > case["jobs"]:
                problems.append(f"log: {sorted(running)} running at once with -j {case['jobs']}")
            queue = by_id[task_id]["queue"]
            if queue and sum(1 for r in running if by_id[r]["queue"] == queue) > case["queues"][queue]:
                problems.append(f"log: more than {case['queues'][queue]} running in {queue}")
        elif word == "alive":
            problems.append(f"{task_id}: its child was still running when a dependent started")
        elif word == "zombie":
            # Killed with the task's group, adopted by flowrun (a child subreaper), not reaped yet.
            zombies.add(task_id)
        elif word == "end" or word == "term":  # one that ignores SIGTERM dies of SIGKILL, silently
            running.discard(task_id)
    if zombies:
        problems.append(f"children of {sorted(zombies)} left as zombies (<defunct>) of flowrun while "
                        "a dependent ran: flowrun adopts them (a subreaper) and must reap them before the task ends")
    for task_id in ids:
        if by_id[task_id].get("group"):
            continue
        starts = log_starts.get(task_id, 0)
        # A cancel may kill an attempt before its script wrote a line.
        if starts != attempts[task_id] and not (case["interrupt"] and starts == attempts[task_id] - 1):
            problems.append(f"{task_id}: {log_starts.get(task_id, 0)} starts in the log, {attempts[task_id]} attempts in events")

    # Final states and attempts.
    observed = {}
    for task_id, event in final_event.items():
        name = event["event"]
        observed[task_id] = {"task.succeeded": "succeeded", "task.cancelled": "cancelled", "task.skipped": "skipped",
                             "task.failed": "allowed" if event.get("allowed") else "failed"}[name]
    if case["interrupt"] is None:
        expected = keep_going_states(case) if case["keep_going"] else None
        for task_id in ids:
            task = by_id[task_id]
            got = observed.get(task_id)
            if expected is not None and got != expected[task_id]:
                problems.append(f"{task_id}: ended {got}, model says {expected[task_id]}")
            if got in ("succeeded", "failed", "allowed") and got != designed_outcome(task):
                problems.append(f"{task_id}: ran and ended {got}, its script makes it {designed_outcome(task)}")
            full = case["keep_going"] or task["when"] != "success" or final_event[task_id]["seq"] <= (first_failure or 0)
            if got in ("failed", "allowed") and full and attempts[task_id] != 1 + task["retries"]:
                problems.append(f"{task_id}: {attempts[task_id]} attempts with retries {task['retries']}"
                                f" ({final_event[task_id]['reason']})")
            if got in ("failed", "allowed") and attempts[task_id] > 1 + task["retries"]:
                problems.append(f"{task_id}: {attempts[task_id]} attempts with retries {task['retries']}")
            if got in ("failed", "allowed"):
                event = final_event[task_id]
                if task["timeout"] and not event["reason"].startswith("timed out after 300ms"):
                    problems.append(f"{task_id}: timed out with reason {event['reason']!r}")
                if task.get("signal"):
                    if event.get("exit_code") is not None or "signal" not in event["reason"]:
                        problems.append(f"{task_id}: killed itself with SIG{task['signal']}: exit_code "
                                        f"{event.get('exit_code')}, reason {event['reason']!r}")
                elif not task["timeout"] and event.get("exit_code") != task["exit"]:
                    problems.append(f"{task_id}: exit_code {event.get('exit_code')}, script exits {task['exit']}")
    else:
        target = case["interrupt"]
        if observed.get(target) != "cancelled":
            problems.append(f"{target}: interrupted while running, ended {observed.get(target)}")

    # workflow.finished and the exit status.
    finished = events[-1]
    counts = finished["counts"]
    want = {"succeeded": 0, "failed": 0, "allowed": 0, "cancelled": 0, "skipped": 0}
    for state in observed.values():
        want[state] += 1
    want["failed"] += want["allowed"]  # the schema: `failed` includes the allowed failures
    got_counts = {k: counts.get(k) for k in want}
    if got_counts != want:
        problems.append(f"workflow.finished counts {got_counts}, events say {want}")
    if case["interrupt"] is not None:
        want_status, want_exit = "cancelled", 143 if case.get("signal") == "TERM" else 130
    elif want["failed"] > want["allowed"]:
        want_status, want_exit = "failed", 1
    else:
        want_status, want_exit = "succeeded", 0
    if finished["status"] != want_status:
        problems.append(f"workflow.finished status {finished['status']}, expected {want_status}")
    if status != want_exit:
        problems.append(f"exit status {status}, expected {want_exit}")

    # At -j 1 with every task succeeding, the start order is --dry-run's.
    if dry_order is not None:
        model_order = dry_run_order(case)
        # Where a skipped task is listed depends on the scheduler's worklist: compare the starts.
        ran = [i for i in model_order if keep_going_like_all_succeed(case, i)]
        listed = [i for i in dry_order if keep_going_like_all_succeed(case, i)]
        if listed != ran or sorted(dry_order) != sorted(model_order):
            problems.append(f"--dry-run order {listed[:12]}..., model {ran[:12]}...")
        if case["jobs"] == 1 and case["interrupt"] is None and all(v == "succeeded" for v in observed.values()):
            run_order = [e["task"] for e in events if e["event"] == "task.started" and e["attempt"] == 1]
            if run_order != [i for i in dry_order if observed.get(i) == "succeeded" and not by_id[i].get("group")]:
                problems.append("the -j 1 run's start order is not --dry-run's")


def stamp(text):
    """Milliseconds of an event's RFC 3339 time (UTC, with ms)."""
    import datetime
    moment = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
    return int(moment.timestamp() * 1000 + 0.5)


def leftover(mark):
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as env:
                if mark.encode() in env.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


def describe(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmd:
            return f"{pid} " + cmd.read().replace(b"\0", b" ").decode(errors="replace")[:60]
    except OSError:
        return str(pid)


def drive(proc, case, work):
    """Sends the case's signals as its go files appear: SIGUSR1 once the pause task has started,
    SIGUSR2 once its final event is written, SIGINT/SIGTERM once the interrupt task has started.
    Returns whether the interrupt was sent."""
    pause_task, target = case.get("pause"), case["interrupt"]
    paused = resumed = pause_task is None
    interrupted = target is None
    # A pause holds a retry too: resume once the task has ended or backs off.
    final = re.compile(r'"event":"task\.(succeeded|failed|cancelled|skipped|retrying)","task":"%s"' % pause_task)
    while proc.poll() is None and not (paused and resumed and interrupted):
        if not paused and os.path.exists(os.path.join(work, "started." + pause_task)):
            proc.send_signal(signal.SIGUSR1)
            paused = True
        elif paused and not resumed:
            with open(os.path.join(work, "events.jsonl")) as stream:
                if final.search(stream.read()):
                    proc.send_signal(signal.SIGUSR2)
                    resumed = True
        if not interrupted and os.path.exists(os.path.join(work, "started." + target)):
            proc.send_signal(signal.SIGTERM if case.get("signal") == "TERM" else signal.SIGINT)
            interrupted = True
        time.sleep(0.005)  # polling for go files, not synchronising on time
    return target is not None and interrupted


def run_case(flowrun, case, work, schema, verbose):
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "flow.yaml")
    write_workflow(case, path)
    mark = f"schedpeer-{os.getpid()}-{case['index']}"
    env = dict(os.environ, SP_DIR=work, SCHEDPEER_MARK=mark)
    env.pop("CI", None)
    env.pop("GITHUB_ACTIONS", None)
    problems = []

    dry = subprocess.run([flowrun, "run", "--dry-run", path], capture_output=True, text=True, env=env)
    dry_order = None
    if dry.returncode != 0:
        problems.append(f"--dry-run exited {dry.returncode}: {dry.stderr.strip()[:300]}")
    else:
        dry_order = re.findall(r"^\s+\d+\. (\S+)\s", dry.stdout, re.M)

    args = [flowrun, "run", "--events", "jsonl", "--no-record", "--grace", "2"]
    if not case["jobs_in_file"]:
        args += ["-j", str(case["jobs"])]
    if case["keep_going"] and not case["keep_going_in_file"]:
        args.append("--keep-going")
    args.append(path)
    with open(os.path.join(work, "events.jsonl"), "wb") as out:
        # SIGINT at its default: a shell gives a background job (`schedpeer.py &`) SIGINT ignored,
        # and flowrun keeps an ignored SIGINT ignored, as make does.
        proc = subprocess.Popen(args, stdout=out, stderr=subprocess.PIPE, env=env,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        if not drive(proc, case, work):
            case["interrupt"] = None  # it never started (an earlier failure): no cancel
        _, err = proc.communicate(timeout=300)
    status = proc.returncode
    events = []
    with open(os.path.join(work, "events.jsonl")) as stream:
        for n, line in enumerate(stream, 1):
            try:
                events.append(json.loads(line))
            except ValueError:
                problems.append(f"events line {n} is not JSON: {line[:80]!r}")
    if schema is not None:
        for event in events:
            errors = list(schema.iter_errors(event))
            if errors:
                problems.append(f"seq {event.get('seq')} {event.get('event')}: {errors[0].message[:160]}")
    log_path = os.path.join(work, "log")
    log_lines = open(log_path).read().splitlines() if os.path.exists(log_path) else []
    if events:
        check_case(case, events, log_lines, status, dry_order, problems)
        if case["interrupt"]:
            STATS["interrupted"] += 1
            cleanup_started = any(e["event"] == "workflow.cleanup" for e in events)
            STATS["cleanup after a cancel"] += cleanup_started
        for e in events:
            if e["event"] == "task.retrying":
                STATS["retries"] += 1
            elif e["event"] == "task.failed" and e["reason"].startswith("timed out"):
                STATS["timeouts"] += 1
            elif e["event"] == "task.skipped":
                STATS["skips"] += 1
    left = leftover(mark)
    deadline = time.monotonic() + 2
    while left and time.monotonic() < deadline:  # the watchdog exits once it reads flowrun's end
        time.sleep(0.05)
        left = leftover(mark)
    if left:
        problems.append(f"processes left after flowrun exited: {[describe(pid) for pid in left]}")
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    if verbose and err:
        sys.stderr.write(err.decode(errors="replace")[-2000:])
    return problems


def load_schema():
    try:
        import jsonschema
    except ImportError:
        print("schedpeer: python3-jsonschema missing: events are not validated against schemas/")
        return None
    with open(os.path.join(ROOT, "schemas", "events.schema.json")) as file:
        schema = json.load(file)
    return jsonschema.Draft202012Validator(schema)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--flowrun", default=os.path.join(ROOT, ".build", "release", "flowrun"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=60)
    parser.add_argument("--case", type=int, help="run only this case of the seed")
    parser.add_argument("--keep", action="store_true", help="keep the cases' folders")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--quick", action="store_true", help="tasks end at once: starts and signals crowd together")
    opts = parser.parse_args()
    schema = load_schema()
    root = tempfile.mkdtemp(prefix="schedpeer-")
    total_tasks = failing_cases = differences = 0
    for index in range(opts.cases):
        rng = random.Random(opts.seed * 100003 + index)
        case = make_case(rng, index, opts.quick)
        if opts.case is not None and index != opts.case:
            continue
        total_tasks += len(case["tasks"])
        problems = run_case(opts.flowrun, case, os.path.join(root, f"case{index}"), schema, opts.verbose)
        if problems:
            failing_cases += 1
            differences += len(problems)
            print(f"case {index} (seed {opts.seed}, {len(case['tasks'])} tasks, -j {case['jobs']}, "
                  f"{'keep-going' if case['keep_going'] else 'fail-fast'}"
                  f"{', SIG' + case['signal'] + ' at ' + case['interrupt'] if case['interrupt'] else ''}):")
            for problem in problems[:12]:
                print("  " + problem)
            if len(problems) > 12:
                print(f"  ... {len(problems) - 12} more")
    ran = opts.cases if opts.case is None else 1
    print(f"schedpeer: {ran} cases, {total_tasks} tasks, {failing_cases} cases with differences, "
          f"{differences} differences")
    print("schedpeer: seen " + ", ".join(f"{k} {v}" for k, v in STATS.items()))
    if opts.keep:
        print(f"kept: {root}")
    else:
        shutil.rmtree(root, ignore_errors=True)
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
