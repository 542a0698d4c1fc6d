#!/usr/bin/env python3
"""flowrun's `dotenv:` files against python-dotenv and docker compose's rules, over generated files.

Each case is a random .env file (comments at line start and after values, `export` with a space
or a tab, spaces around `=`, unquoted values holding `#`, `=`, `'`, non-ASCII, single-quoted
values with `$`, `#`, backslashes and newlines, double-quoted values with the escapes `\\n`,
`\\t`, `\\\\`, `\\"`, `\\$` and newlines, empty values, CRLF line ends, a BOM, and now and then
an invalid line, `${NAME}` and `${NAME:-default}` naming earlier keys, later keys, unset names and
a variable of the process environment), read by a workflow whose one task dumps its environment.
The env the task saw is compared with python-dotenv's `dotenv_values()` (the runnable peer, which
interpolates those two forms as compose does: earlier keys, then the process environment, never
in single quotes), after
the rules where docker compose's parser (compose-go/dotenv) is known to differ from
python-dotenv and flowrun follows compose:
- a BOM at the start is skipped (compose-go #301; python-dotenv 1.2 keeps it in the first key);
- a single-quoted value is literal (python-dotenv reads `\\'` and `\\\\` in it);
- `\\$` in double quotes is a literal `$` (python-dotenv keeps the backslash);
- an invalid line is an error (compose refuses the file; python-dotenv skips the line): flowrun
  must say `FILE:LINE:COL` with the line python-dotenv skipped.
- python-dotenv's interpolation differs from compose's in two ways, which flowrun follows compose
  in: it expands inside single quotes too, and its `${NAME:-default}` takes the default only when
  NAME is unset (compose and the shell: unset or empty). A value that differs from
  python-dotenv's only so is checked against `compose_values` (python-dotenv's parse of each
  line, in order, expanded by those compose rules) and counted apart;
- `${NAME:?message}` with NAME unset is an error at its line (python-dotenv has no such form).
Documented choices of flowrun (README "dotenv files") counted apart: `KEY` alone (compose takes
it from the environment) and `KEY: VALUE` are errors, text after a closing quote is an error.
The cases where interpolation changed a value are counted ("of which expanded").

  python3 scripts/dotenvpeer.py --flowrun .build/debug/flowrun --cases 300 --seed 1
"""
import argparse
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

from dotenv import dotenv_values
from dotenv.parser import parse_stream

KEYS = ["A", "B_2", "_C", "DB_URL", "Path_x", "EMPTY", "LONG_NAME_ONE", "z"]
UNQUOTED = ["abc", "a b", "x#y", "p=q", "é", "ünï 字", "1.5", "c:/dir", "'q'", 'say"hi', "-v", "a\\b", "tail  ", "${A}/x",
            "${PEER_HOST}", "${UNSET_X:-dflt}", "${EMPTY:-e}", "${z}${A}"]
SINGLE = ["abc", "$HOME", "${X}", "# not", "a\\nb", 'd"q', "two\nlines", " sp ", "é", "\\\\", "end\\"]
DOUBLE = ["abc", "a\\nb", "t\\tb", 'q\\"q', "back\\\\slash", "cost \\$5", "# in", "it's", "two\nlines", " sp ", "字",
          "${B_2}-y", "${PEER_HOST}:${A:-none}", "${UNSET_X:-a b}", "${LONG_NAME_ONE}"]
INVALID = ["lol$wut", "1A=b", "A-B=c", "BARE", 'UNCLOSED="abc', "TAIL='x'y", "KEY: value", "REQ=${UNSET_X:?set it}"]


def line_for(rng, key):
    prefix = rng.choice(os.environ.get("DOTENVPEER_PREFIXES", "|| export |export\t|  |\t").split("|"))
    sep = rng.choice(["=", "=", " = ", "= ", " ="])
    kind = rng.choice(["u", "u", "s", "d", "d", "e"])
    comment = rng.choice(["", "", "", " # note", "  # x=y", "\t# tab"])
    if kind == "u":
        value = " ".join(rng.sample(UNQUOTED, rng.randint(1, 2)))
        if comment.startswith("\t"):
            comment = ""
        return prefix + key + sep + value + comment
    if kind == "s":
        value = "".join(rng.sample(SINGLE, rng.randint(1, 2)))
        if value.endswith("\\"):
            value += "x"
        return prefix + key + sep + "'" + value + "'" + comment
    if kind == "d":
        return prefix + key + sep + '"' + "".join(rng.sample(DOUBLE, rng.randint(1, 2))) + '"' + comment
    return prefix + key + sep + rng.choice(["", "''", '""']) + comment


def generate(rng):
    lines = []
    invalid = None
    for _ in range(rng.randint(1, 8)):
        r = rng.random()
        if r < 0.1:
            lines.append(rng.choice(["", "   ", "# comment", "  # indented = comment", "#A=1"]))
        elif r < 0.14 and invalid is None:
            invalid = rng.choice(INVALID)
            lines.append(invalid)
        else:
            lines.append(line_for(rng, rng.choice(KEYS)))
    crlf = rng.random() < 0.15
    bom = rng.random() < 0.1
    text = ("\r\n" if crlf else "\n").join(lines) + rng.choice(["\n", "", "\n\n"]).replace("\n", "\r\n" if crlf else "\n")
    return ("\ufeff" if bom else "") + text, invalid


def single_literal(text):
    """key -> the text of its last binding's single-quoted value, or None if that is not one."""
    found = {}
    for m in re.finditer(r"^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)[ \t]*=[ \t]*(')?", text, re.M):
        end = text.find("'", m.end()) if m.group(2) else -1
        found[m.group(1)] = text[m.end():end] if end >= 0 else None
    return found


# A variable of the process environment, the same for flowrun and for python-dotenv.
PEER_HOST = "peer.example:8080"


def compose_values(body):
    """What compose gives: each binding in order, single-quoted ones literal, others with
    `${NAME}` / `${NAME:-default}` expanded from earlier keys, then the process environment."""
    env = {}
    pattern = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
    for binding in parse_stream(io.StringIO(body)):
        if binding.key is None or binding.value is None:
            continue
        raw = re.match(r"\s*(?:export[ \t]+)?[A-Za-z_][A-Za-z0-9_]*[ \t]*=[ \t]*'(.*)'", binding.original.string, re.S)
        if raw:
            env[binding.key] = raw.group(1)
            continue

        def look(m):
            value = env.get(m.group(1), os.environ.get(m.group(1)))
            if m.group(2) is not None and not value:
                return m.group(2)
            return value or ""
        env[binding.key] = pattern.sub(look, binding.value)
    return env


def run_case(flowrun, folder, text):
    with open(os.path.join(folder, ".env"), "w", newline="") as f:
        f.write(text)
    with open(os.path.join(folder, "dump.py"), "w") as f:
        f.write("import os, json\njson.dump(dict(os.environ), open('env.json', 'w'))\n")
    with open(os.path.join(folder, "flowrun.yaml"), "w") as f:
        f.write("version: 1\ndotenv: [.env]\ntasks:\n  dump:\n    shell: python3 dump.py\n")
    env = {"PATH": os.environ["PATH"], "HOME": "/nonexistent-home", "PEER_HOST": PEER_HOST}
    run = subprocess.run([flowrun, "run", "--no-record", "--events", "plain", "flowrun.yaml"], cwd=folder, env=env,
                         capture_output=True, text=True)
    if run.returncode != 0:
        return None, (run.stdout + run.stderr).strip()
    with open(os.path.join(folder, "env.json")) as f:
        return json.load(f), None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--flowrun", default=".build/debug/flowrun")
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    flowrun = os.path.abspath(args.flowrun)
    os.environ["PEER_HOST"] = PEER_HOST
    os.environ.pop("UNSET_X", None)
    rng = random.Random(args.seed)
    counts = {}
    differing = 0
    root = tempfile.mkdtemp(prefix="dotenvpeer-")
    for case in range(args.cases):
        text, invalid = generate(rng)
        folder = os.path.join(root, "case%04d" % case)
        os.makedirs(folder)
        got, error = run_case(flowrun, folder, text)
        body = text[1:] if text.startswith("\ufeff") else text
        if invalid is not None and invalid.startswith("UNCLOSED") and '"' in body[body.index(invalid) + len(invalid):]:
            invalid = None   # a later " closes it, for compose and python-dotenv too: a value over lines
        peer = dotenv_values(stream=io.StringIO(body), interpolate=False)
        expanded = dotenv_values(stream=io.StringIO(body), interpolate=True)
        expands = any(peer[k] != expanded[k] for k in peer)
        want = {}
        literal = single_literal(body.replace("\r\n", "\n"))
        for key, value in expanded.items():
            if value is None:
                continue
            if literal.get(key) is not None:
                # python-dotenv unescapes \' and \\ inside single quotes; compose does not.
                value = literal[key]
            want[key] = value
        verdict = "same"
        detail = None
        if invalid is not None:
            if error is None:
                verdict, detail = "invalid line accepted", invalid
            else:
                number = body.replace("\r\n", "\n").split("\n").index(invalid) + 1
                # An unclosed quote runs on to the next quote, as compose's does: the error is there or later.
                lines = [int(n) for n in re.findall(r"\.env:(\d+):\d+: error", error)]
                right = number in lines or (invalid.startswith("UNCLOSED") and lines and min(lines) >= number)
                verdict = "documented: invalid line is an error" if right else "error at the wrong place"
                detail = None if right else error
        elif error is not None and "after the value's closing" in error and "after the value's closing" in error.split("\n")[0]:
            # `A='q' rest`: python-dotenv skips the line, compose reads `rest` as the next key.
            verdict = "documented: text after a closing quote is an error"
        elif error is not None:
            verdict, detail = "refused", error
        else:
            diffs = {}
            by_compose = False
            composed = compose_values(body)
            for key, value in want.items():
                seen = got.get(key)
                if seen == value:
                    continue
                if seen is not None and seen == value.replace("\\$", "$"):
                    continue   # compose: \$ in double quotes is a literal $
                if seen is not None and seen in (composed.get(key), composed.get(key, "").replace("\\$", "$")):
                    by_compose = True   # python-dotenv's interpolation differs from compose's here
                    continue
                diffs[key] = (value, seen)
            if diffs:
                verdict, detail = "values", diffs
            elif by_compose:
                verdict = "documented: compose's interpolation (python-dotenv differs: single quotes, :- on empty)"
        counts[verdict] = counts.get(verdict, 0) + 1
        if expands and verdict == "same":
            counts["of which expanded"] = counts.get("of which expanded", 0) + 1
        if not verdict.startswith("documented") and verdict != "same":
            differing += 1
            print("case %d: %s\n  file %r\n  peer %s\n  flowrun %s" % (case, verdict, text, json.dumps(want, ensure_ascii=False),
                                                                    detail))
        else:
            shutil.rmtree(folder)
    print("cases %d, differing %d; by verdict: %s" % (args.cases, differing, json.dumps(counts, sort_keys=True)))
    if differing == 0:
        shutil.rmtree(root)
    else:
        print("folders:", root)
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()
