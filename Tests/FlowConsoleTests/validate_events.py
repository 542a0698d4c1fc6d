#!/usr/bin/env python3
"""Checks a flowrun JSON Lines event stream (`--events jsonl`, `--events-file`).

Usage: validate_events.py SCHEMA EVENTS.jsonl [--tasks N]

Every line must be one JSON object valid against SCHEMA (schemas/events.schema.json), and the
stream must keep the invariants of the contract (cli-and-events.md, "Events"):
  - seq counts from 1 with no gaps;
  - the first event is workflow.started, the last workflow.finished, nothing after it;
  - each task has exactly one final event (task.succeeded, .failed, .cancelled or .skipped),
    and as many tasks have one as workflow.started's `tasks` says;
  - a task's task.output, task.progress and task.retrying come after its task.started and
    before its final event, and nothing of a task comes after its final event;
  - task.started of attempt k > 1 comes after the task.retrying of attempt k - 1;
  - workflow.finished's counts equal the number of final events of each kind, and
    counts.allowed the number of task.failed events with allowed: true, and counts.up_to_date
    and counts.done_before (when present) the task.skipped events with that reason;
  - a task.skipped has `run` exactly when its reason is done-before;
  - with --tasks N: workflow.started's `tasks` is N (and so there are N final events).
Prints every problem as `LINE: problem` and exits 1 if any; else prints
`ok: N events, T tasks` and exits 0. Needs python3 and the `jsonschema` package.
"""
import argparse
import json

import jsonschema

FINALS = {f"task.{kind}": kind for kind in ("succeeded", "failed", "cancelled", "skipped")}
DURING = ("task.output", "task.progress", "task.retrying")


def parse(text):
    """One JSON object, refusing duplicate keys and NaN/Infinity."""
    if not text.strip():
        raise ValueError("empty line")
    def pairs(items):
        dup = [k for i, (k, _) in enumerate(items) if any(k == j for j, _ in items[:i])]
        if dup:
            raise ValueError(f"duplicate key {dup[0]!r}")
        return dict(items)

    def constant(name):
        raise ValueError(f"{name} is not JSON")
    value = json.loads(text, object_pairs_hook=pairs, parse_constant=constant)
    if not isinstance(value, dict):
        raise ValueError(f"a JSON {type(value).__name__}, not an object")
    return value


def check(schema, lines, expected_tasks):
    """Returns (problems as (line, text), number of events, number of tasks with a final event)."""
    problems = []
    say = lambda n, text: problems.append((n, text))  # noqa: E731
    validator = jsonschema.Draft202012Validator(schema)
    tasks = {}  # id -> {"started": line, "attempt": k, "retried": {k}, "final": line}
    tally = {kind: 0 for kind in FINALS.values()}
    allowed = 0  # task.failed events with allowed: true, which counts.failed includes
    kept = {"up_to_date": 0, "done_before": 0}  # task.skipped events with these reasons
    last_seq, started, finished, declared, event, n = 0, None, None, None, None, 0
    for n, text in enumerate(lines, 1):
        try:
            obj = parse(text.decode("utf-8"))
        except ValueError as error:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
            say(n, f"not one JSON object: {error}")
            last_seq += 1  # the line was presumably an event: do not report a gap too
            continue
        errors = sorted(validator.iter_errors(obj), key=lambda e: e.json_path)
        for message in dict.fromkeys(f"{e.json_path}: {e.message}" for e in errors):
            say(n, f"schema: {message}")  # once: the top level and the event's $def may both say it
        event, task, seq = obj.get("event"), obj.get("task"), obj.get("seq")
        seq = seq if type(seq) is int else last_seq + 1  # a missing or wrong seq: said above
        if seq != last_seq + 1:
            say(n, f"seq {seq}, expected {last_seq + 1}")
        last_seq = seq
        if n == 1 and event != "workflow.started":
            say(n, f"first event is {event}, not workflow.started")
        if finished:
            say(n, f"{event} after workflow.finished (line {finished})")
        if event == "workflow.started":
            if started:
                say(n, f"second workflow.started (first at line {started})")
            else:
                started, declared = n, obj.get("tasks")
            if expected_tasks is not None and obj.get("tasks") != expected_tasks:
                say(n, f"workflow.started says {obj.get('tasks')} tasks, expected {expected_tasks}")
        elif event == "workflow.finished":
            finished = finished or n
            counts = obj.get("counts") if isinstance(obj.get("counts"), dict) else {}
            for kind, number in tally.items():
                if counts.get(kind) != number:
                    say(n, f"counts.{kind} is {counts.get(kind)}, but {number} task.{kind} events")
            if counts.get("allowed") != allowed:
                say(n, f"counts.allowed is {counts.get('allowed')}, but {allowed} task.failed events with allowed: true")
            for key, number in kept.items():
                if key in counts and counts[key] != number:
                    say(n, f"counts.{key} is {counts[key]}, but {number} task.skipped events with that reason")
        if not isinstance(task, str):
            continue
        state = tasks.setdefault(task, {"started": None, "attempt": 0, "retried": set(), "final": None})
        attempt = obj.get("attempt") if isinstance(obj.get("attempt"), int) else None
        if state["final"]:
            what = "second final event" if event in FINALS else "after its final event"
            say(n, f"{event} of {task}: {what} (line {state['final']})")
        if event == "task.started":
            if attempt == 1 and state["started"]:
                say(n, f"task.started of {task} attempt 1 again (first at line {state['started']})")
            elif attempt and attempt > 1 and attempt - 1 not in state["retried"]:
                say(n, f"task.started of {task} attempt {attempt} without task.retrying of attempt {attempt - 1}")
            state["started"], state["attempt"] = state["started"] or n, attempt or state["attempt"]
        elif event in DURING:
            if not state["started"]:
                say(n, f"{event} of {task} before its task.started")
            if event == "task.retrying" and attempt is not None:
                if state["started"] and attempt != state["attempt"]:
                    say(n, f"task.retrying of {task} attempt {attempt}, but attempt {state['attempt']} is running")
                state["retried"].add(attempt)
        elif event in FINALS and not state["final"]:
            state["final"] = n
            tally[FINALS[event]] += 1
            allowed += event == "task.failed" and obj.get("allowed") is True
            if event == "task.skipped":
                reason = obj.get("reason")
                kept["up_to_date"] += reason == "up-to-date"
                kept["done_before"] += reason == "done-before"
                if (reason == "done-before") != ("run" in obj):
                    say(n, f"task.skipped of {task}: reason {reason!r} {'without' if 'run' not in obj else 'with'} a run")
    if n == 0:
        say(1, "no events")
        return problems, 0, 0
    if not finished:
        say(n, f"last event is {event}, not workflow.finished")
    where = finished or n
    for task, state in tasks.items():
        if not state["final"]:
            say(where, f"task {task} has no final event")
    finals = sum(tally.values())
    expected = declared if expected_tasks is None else expected_tasks
    if isinstance(expected, int) and finals != expected:
        say(where, f"{finals} tasks have a final event, expected {expected}")
    problems.sort(key=lambda p: p[0])  # stable: a line's problems keep their order
    return problems, n, finals


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("schema")
    parser.add_argument("events")
    parser.add_argument("--tasks", type=int, metavar="N", help="the number of tasks the run has")
    args = parser.parse_args()
    with open(args.schema, encoding="utf-8") as file:
        schema = json.load(file)
    with open(args.events, "rb") as file:
        lines = file.read().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # the newline that ends the last line
    problems, events, tasks = check(schema, lines, args.tasks)
    for line, text in problems:
        print(f"{line}: {text}")
    if problems:
        return 1
    print(f"ok: {events} events, {tasks} tasks")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
