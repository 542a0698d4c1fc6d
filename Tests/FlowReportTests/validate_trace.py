#!/usr/bin/env python3
"""Checks a Chrome trace event file against the format's definition, as Perfetto and
chrome://tracing read it (the "JSON Object Format" of the Trace Event Format document), and its
complete slices against the expected ones.

Usage: validate_trace.py TRACE.json [EXPECTED.json]
EXPECTED is a JSON array of [name, ts, dur] (microseconds), one per attempt, in any order.
Prints "ok: N slices on M tracks" or the problems found, and exits 1 on any.
"""
import json
import sys

METADATA = {"process_name": "name", "thread_name": "name", "process_sort_index": "sort_index", "thread_sort_index": "sort_index"}


def number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check(trace, problems):
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        problems.append("the top level is not an object with a traceEvents array")
        return []
    if trace.get("displayTimeUnit", "ms") not in ("ms", "ns"):
        problems.append("displayTimeUnit is neither ms nor ns")
    slices = []
    for index, event in enumerate(trace["traceEvents"]):
        where = f"event {index}"
        if not isinstance(event, dict) or not isinstance(event.get("ph"), str):
            problems.append(f"{where}: not an object with a ph string")
            continue
        for key in ("pid", "tid"):
            if not isinstance(event.get(key), int):
                problems.append(f"{where}: {key} is not an integer")
        if "args" in event and not isinstance(event["args"], dict):
            problems.append(f"{where}: args is not an object")
        if event["ph"] == "M":
            key = METADATA.get(event.get("name"))
            if key is None or key not in event.get("args", {}):
                problems.append(f"{where}: metadata event {event.get('name')!r} without args.{key}")
        elif event["ph"] == "X":
            if not isinstance(event.get("name"), str):
                problems.append(f"{where}: a complete event without a name")
            if not number(event.get("ts")) or event["ts"] < 0:
                problems.append(f"{where}: ts is not a number of microseconds")
            if not number(event.get("dur")) or event["dur"] < 0:
                problems.append(f"{where}: dur is not a non-negative number")
            if "cat" in event and not isinstance(event["cat"], str):
                problems.append(f"{where}: cat is not a string")
            slices.append(event)
        else:
            problems.append(f"{where}: phase {event['ph']!r} is not one flowrun writes")
    tracks = {}
    for event in slices:
        tracks.setdefault((event.get("pid"), event.get("tid")), []).append(event)
    for track, events in tracks.items():
        events.sort(key=lambda e: e["ts"])
        for left, right in zip(events, events[1:]):
            if left["ts"] + left["dur"] > right["ts"]:
                problems.append(f"track {track}: {left['name']!r} overlaps {right['name']!r}")
    return slices, len(tracks)


def main():
    with open(sys.argv[1], encoding="utf-8") as file:
        trace = json.load(file)
    problems = []
    slices, tracks = check(trace, problems) or ([], 0)
    if len(sys.argv) > 2:
        with open(sys.argv[2], encoding="utf-8") as file:
            expected = sorted(tuple(item) for item in json.load(file))
        found = sorted((e.get("name"), e.get("ts"), e.get("dur")) for e in slices)
        if found != expected:
            problems.append(f"the slices are {found}, the events say {expected}")
    if problems:
        print("\n".join(problems))
        sys.exit(1)
    print(f"ok: {len(slices)} slices on {tracks} tracks")


main()
