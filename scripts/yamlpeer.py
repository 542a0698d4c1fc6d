#!/usr/bin/env python3
"""flowrun's YAML loading against a YAML 1.2 peer (ruamel.yaml), over generated workflow files.

Valid cases: each is a workflow whose tasks receive tricky but valid YAML values in the places
values flow to a task: workflow and task `env` values (`printf '%s' "$V" > out/tN`), a `shell`
script (handed by an `interpreter` list to `printf`), a `shell` argv word, the workflow `name`
(the `workflow.started` event) and a combine's `to` path (the file name that appears). Values are
plain, single- and double-quoted scalars (every escape of YAML 1.2: \\x \\u \\U \\N \\_ \\L \\P
\\e \\0-free, escaped line breaks, folding of quoted lines), literal and folded block scalars
with every chomping indicator and explicit indentation indicators, tabs and trailing blank lines
inside them, comments after values, anchors, aliases and `<<` merges, flow mappings and lists,
YAML 1.1 spellings (`on`, `yes`, `0755`, `1_000`, `2001-12-14`) and core-schema numbers, very
long and non-ASCII values; files get a BOM, CRLF line ends, `---` and `...` markers at random.

The peer is ruamel.yaml's composer (its node tree: each scalar's text, style and tag). Its
resolver is not used: ruamel's `safe` loader types `1_000`, `0b101` and `2001-12-14` as YAML 1.1
did. Plain scalars are typed here by the YAML 1.2 core schema's regular expressions (spec 10.3.2),
which is what flowrun's README says it follows. flowrun's documented coercion (README "Decisions"
and `WorkflowDecoder.string`): any non-null scalar where a string is expected is its text as
written (`V: 0o755` is "0o755", GitHub Actions' own reading keeps `2.4` too); null there is an
error at the value. Merged `<<` keys are placed where the `<<` is written (go-yaml's order, the
README's rule); the generator writes `<<` first in a matrix, where ruamel agrees (ruamel puts
every merged key first, go-yaml where the `<<` is). A matrix's ids follow its key order.

Random edits: a generated valid file with one character inserted or deleted or one line
re-indented. Where the peer reports a syntax error, flowrun must exit 2 with an error on the
peer's problem or context line or on the edited line; where the peer loads the file, a file
flowrun accepts must pass the schema.

Invalid cases: a valid file mutated (duplicate key, wrong type, unknown key, an indentation
shift, an unclosed quote, a tab as indentation, an alias to no anchor, a recursive alias, a
billion-laughs bomb, a file over 32 MiB, 10,000-deep flow nesting, a byte that is not UTF-8, a NUL
byte, a `\\0` escape, a second document). `validate`, `run --dry-run` and `graph` must exit 2 with
`FILE:LINE:COL: error:` at the place (ruamel's problem or context mark for a syntax error, the
generated place otherwise), within 10 s, never a signal. Every file ruamel can load is also
checked against schemas/workflow.schema.json with jsonschema: a file flowrun accepts must pass the
schema (flowrun may refuse more: undefined variables, cycles, duplicate keys).

  python3 scripts/yamlpeer.py --flowrun .build/debug/flowrun --seed 1 --cases 300
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

import jsonschema
from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = json.load(open(os.path.join(HERE, "..", "schemas", "workflow.schema.json")))

# ---------------------------------------------------------------- the YAML 1.2 core schema

CORE_NULL = re.compile(r"null|Null|NULL|~|")
CORE_BOOL = re.compile(r"true|True|TRUE|false|False|FALSE")
CORE_INT = re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+")
CORE_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF)|\.nan|\.NaN|\.NAN")


class Scalar:
    """A scalar as the peer composed it: text, whether plain, and its core-schema value."""

    def __init__(self, node):
        self.text = node.value
        self.plain = node.style is None
        self.mark = node.start_mark
        self.value = self.core() if self.plain else self.text

    def core(self):
        t = self.text
        if CORE_NULL.fullmatch(t):
            return None
        if CORE_BOOL.fullmatch(t):
            return t.lower() == "true"
        if CORE_INT.fullmatch(t):
            if t.startswith("0o"):
                return int(t[2:], 8)
            if t.startswith("0x"):
                return int(t[2:], 16)
            return int(t)
        if CORE_FLOAT.fullmatch(t):
            return float(t.lower().replace(".inf", "inf").replace(".nan", "nan"))
        return t


class PeerError(Exception):
    def __init__(self, message, mark):
        super().__init__(message)
        self.mark = mark


def construct(node, depth=0, active=None):
    """The node tree as Python values, scalars kept as `Scalar`, with `<<` merged as YAML 1.1's
    merge key type says (own keys win; earlier merged mappings win over later ones), the merged
    keys where the `<<` is (go-yaml's order; ruamel puts them first, the same for `<<` first)."""
    active = active or set()
    if id(node) in active:
        raise PeerError("recursive alias", node.start_mark)
    if isinstance(node, ScalarNode):
        return Scalar(node)
    active = active | {id(node)}
    if isinstance(node, SequenceNode):
        return [construct(item, depth + 1, active) for item in node.value]
    entries, keys = [], set()  # ("own", name, value) and ("merge", [mappings]) in file order
    for key_node, value_node in node.value:
        key = construct(key_node, depth + 1, active)
        if isinstance(key, Scalar) and key.plain and key.text == "<<":
            source = construct(value_node, depth + 1, active)
            entries.append(("merge", source if isinstance(source, list) else [source]))
            continue
        name = key.text if isinstance(key, Scalar) else repr(key)
        if name in keys:
            raise PeerError("duplicate key " + name, key_node.start_mark)
        keys.add(name)
        entries.append(("own", name, construct(value_node, depth + 1, active)))
    result = {}
    for entry in entries:
        if entry[0] == "own":
            result[entry[1]] = entry[2]
            continue
        for source in entry[1]:
            for name, value in (source.items() if isinstance(source, dict) else []):
                if name not in keys and name not in result:
                    result[name] = value
    return result


def plain_json(value):
    """Scalars as their core-schema values, for jsonschema."""
    if isinstance(value, Scalar):
        return value.value
    if isinstance(value, list):
        return [plain_json(v) for v in value]
    return {k: plain_json(v) for k, v in value.items()}


def peer_load(data):
    """(tree, None) or (None, (message, mark, context_mark)) for a file's bytes."""
    yaml = YAML(typ="safe", pure=True)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return None, ("not UTF-8", None, None, error.start)
    try:
        documents = list(yaml.compose_all(io.StringIO(text)))
    except MarkedYAMLError as error:
        return None, (str(error.problem), error.problem_mark, error.context_mark, None)
    except YAMLError as error:
        return None, (str(error), getattr(error, "problem_mark", None), None, getattr(error, "position", None))
    except RecursionError:
        return None, ("too deep", None, None, None)
    except ValueError as error:  # ruamel's own bug: `"\\UFFFFFFFF"` raises from chr()
        return None, ("peer failed: " + str(error), None, None, None)
    if len(documents) > 1:
        return None, ("second document", None, None, None)
    if not documents or documents[0] is None:
        return None, ("empty", None, None, None)
    try:
        return construct(documents[0]), None
    except PeerError as error:
        return None, (str(error), error.mark, None, None)
    except RecursionError:
        return None, ("too deep", None, None, None)


# ---------------------------------------------------------------- generated values

WORDS = ["hello world", "a#b", "x:y", "-v", "é ü 字", "C:\\dir\\file", "50%", "it's", 'say "hi"', "1.2.3", "v1.0",
         "${HOME}", "$${X}", "a  b", "tail\\", "😀", "key=value", "semi;colon", "back`tick`", "@at", "~user"]
TYPED = ["on", "off", "yes", "no", "y", "0755", "0o755", "0o8", "1e3", "1E3", ".inf", "-.inf", ".NaN", "0x1F", "0x1f",
         "1_000", "12", "-3", "+12", "true", "False", "TRUE", "tRue", "2001-12-14", "1:20", "0b101", "1.", ".5", "+.5",
         "12e03", "0.", "007", "=", "Null"]
NULLS = ["~", "null", "NULL", ""]
ESCAPES = ["\\x41", "\\xe9", "\\u00e9", "\\u263A", "\\U0001F600", "\\N", "\\_", "\\L", "\\P", "\\t", "\\n", "\\r", "\\\\",
           '\\"', "\\/", "\\e", "\\a", "\\b", "\\v", "\\f", "\\ ", "\\\t"]
BLOCK_LINES = ["line one", "  more indented", "", "\tstarts with a tab", "tab\tinside", "# not a comment", "key: value",
               "- item", "'quoted'", "\"dq\"", "ünï 字", "trailing space ", "   ", "\\n stays"]


class Writer:
    """One value's YAML text (lines after the first indented by `indent`) and what it holds."""

    def __init__(self, rng, indent, flow=False, long_values=True):
        self.rng, self.indent, self.flow, self.long_values = rng, indent, flow, long_values

    def value(self, allow_null=False):
        rng = self.rng
        kinds = ["plain", "typed", "single", "double", "double", "block"] if not self.flow else \
            ["flowplain", "typed", "single", "double", "double"]
        if allow_null and rng.random() < 0.05:
            return rng.choice(NULLS)
        kind = rng.choice(kinds)
        return getattr(self, kind)()

    def plain(self):
        rng = self.rng
        choice = rng.random()
        if choice < 0.15:  # a plain scalar folded over lines
            return "first part\n" + " " * (self.indent + 2) + "second part"
        if choice < 0.2 and self.long_values:
            return "x" * rng.choice([5000, 70000])
        word = rng.choice([w for w in WORDS if not w.startswith(("@", "`", "-", "~", "'", '"')) and ": " not in w])
        return word if not word.startswith(("$",)) else word

    def flowplain(self):
        return self.rng.choice(["hello world", "é ü 字", "x:y", "a#b", "v1.0", "😀", "C:\\dir"])

    def typed(self):
        return self.rng.choice(TYPED)

    def single(self):
        rng = self.rng
        body = rng.choice(["it''s", "a \\n b", "\\x41", "two\n" + " " * (self.indent + 2) + "lines",
                           "para\n\n" + " " * (self.indent + 2) + "graph", "  spaced  ", "", "#hash", "é", "\"d\""])
        return "'" + body + "'"

    def double(self):
        rng = self.rng
        parts = []
        for _ in range(rng.randint(1, 5)):
            r = rng.random()
            if r < 0.5:
                parts.append(rng.choice(ESCAPES))
            elif r < 0.7:
                parts.append(rng.choice(["abc", " x ", "é", "字", "'", "#", ": ", "${A}"]))
            elif r < 0.8:  # an escaped line break: nothing, and leading blanks of the next line go
                parts.append("a\\\n" + " " * (self.indent + 2) + "  b")
            elif r < 0.9:  # folding: one line break is a space, an empty line is a newline
                parts.append("c\n" + " " * (self.indent + 2) + "d")
            else:
                parts.append("e\n\n" + " " * (self.indent + 2) + "f")
        return '"' + "".join(parts) + '"'

    def block(self):
        rng = self.rng
        style = rng.choice(["|", ">"]) + rng.choice(["", "-", "+"])
        explicit = rng.random() < 0.3
        extra = rng.randint(1, 3) if explicit else 2
        if explicit:
            style = rng.choice([style[0] + str(extra) + style[1:], style + str(extra)])
        if rng.random() < 0.3:
            style += "  # comment after the indicator"
        pad = " " * (self.indent + extra)
        lines = [rng.choice(BLOCK_LINES) for _ in range(rng.randint(1, 5))]
        if not explicit:  # without an indicator the first line sets the indentation
            while lines and (lines[0].strip() == "" or lines[0].startswith((" ", "\t"))):
                lines.pop(0)
            if not lines:
                lines = ["only"]
        text = "\n".join(pad + line if line.strip() else line.replace(" ", "") for line in lines)
        trailing = "\n" * rng.choice([0, 0, 1, 2])
        return style + "\n" + text + trailing


# ---------------------------------------------------------------- generated workflows

SCRIPT = 'printf "%s" "$1" > "out/$0"'


def valid_case(rng):
    """A workflow file's text and the slots to check: (kind, task id or key, where the value is)."""
    lines = ["version: 1"]
    slots = []
    if rng.random() < 0.3:
        lines.append("name: " + Writer(rng, 0, long_values=False).value())
        slots.append(("name", None))
    env_style = rng.choice(["block", "flow", "anchor"])
    lines.append("env:" + (" &wenv" if env_style == "anchor" else ""))
    lines.append("  W0: " + Writer(rng, 2).value(allow_null=True))
    slots.append(("wenv", "W0"))
    lines.append("tasks:")
    lines += ["  wenv:", "    shell: printf '%s' \"$W0\" > out/wenv"]
    anchors = []
    for i in range(rng.randint(2, 7)):
        tid = "t%d" % i
        lines.append("  %s:" % tid)
        kind = rng.choice(["env", "env", "script", "argv", "path", "alias", "merge", "flowenv", "description", "matrix"])
        w = Writer(rng, 6)
        if kind in ("env", "alias"):
            anchor = ""
            if kind == "env" and rng.random() < 0.5:
                anchor = "&a%d " % i
                anchors.append("a%d" % i)
            value = "*" + rng.choice(anchors) if kind == "alias" and anchors else anchor + w.value(allow_null=True)
            if value.startswith("&") and value.endswith(tuple("|>-+0123456789")):
                value = value  # an anchor before a block scalar header is valid
            lines += ["    env:", "      V: " + value, "    shell: printf '%s' \"$V\" > out/" + tid]
            slots.append(("env", tid))
        elif kind == "flowenv":
            value = Writer(rng, 6, flow=True).value(allow_null=True)
            lines += ["    env: { V: %s, Q: 'x' }" % value, "    shell: printf '%s' \"$V\" > out/" + tid]
            slots.append(("env", tid))
        elif kind == "merge":
            source = rng.choice(["*wenv", "{V: %s}" % Writer(rng, 6, flow=True).value(), "[{V: first}, *wenv]"])
            if "*wenv" not in source or env_style == "anchor":
                lines += ["    env:", "      <<: " + source]
                if rng.random() < 0.5:
                    lines.append("      V: " + Writer(rng, 6).value())
                lines.append("    shell: printf '%s' \"${V-unset}\" > out/" + tid)
                slots.append(("mergeenv", tid))
            else:
                lines += ["    shell: [sh, -c, 'printf x > out/%s']" % tid]
        elif kind == "description":
            lines += ["    description: " + Writer(rng, 4).value(), "    shell: 'true'"]
            slots.append(("description", tid))
        elif kind == "matrix":
            # `<<` first, where YAML readers agree that the merged keys come first
            own = rng.choice(["py: [x, y]", "py: [x], os: [w]", "a: ['1']"])
            lines += ["    matrix: {<<: {os: [l, m], b: [q]}, %s}" % own, "    shell: 'true'"]
            slots.append(("matrix", tid))
        elif kind == "script":
            lines += ["    interpreter: [sh, -c, '%s', %s]" % (SCRIPT, tid), "    shell: " + Writer(rng, 4).value()]
            slots.append(("script", tid))
        elif kind == "argv":
            form = rng.random()
            if form < 0.5:
                lines += ["    shell:", "      - sh", "      - -c", "      - '%s'" % SCRIPT, "      - " + tid,
                          "      - " + Writer(rng, 6).value()]
            else:
                lines.append("    shell: [sh, -c, '%s', %s, %s]" % (SCRIPT, tid, Writer(rng, 6, flow=True).value()))
            slots.append(("argv", tid))
        else:
            value = rng.choice(["'é ü 字.txt'", '"\\u00e9t\\xe9.txt"', "plain name.txt", '"tab\\there"', "0o755",
                                "'quote''s'", '"\\U0001F600"', "|-\n        block name", ">-\n        folded\n        name",
                                "yes", "1e3", '"a\\\n        b"'])
            lines += ["    combine:", "      inputs: [src.txt]", "      to: " + value, "    workdir: p_" + tid]
            slots.append(("path", tid))
        if rng.random() < 0.2:
            lines[-1] += "   # a comment after the value" if not lines[-1].rstrip().endswith(("|", ">", "-", "+")) else ""
    text = "\n".join(lines) + "\n"
    return text, slots


def dress(rng, text):
    """File-level variations: markers, trailing blank lines, CRLF, BOM."""
    if rng.random() < 0.2:
        text = "---\n" + text
    if rng.random() < 0.2:
        text += "...\n"
    if rng.random() < 0.2:
        text += "\n\n# trailing comment\n\n"
    data = text.encode("utf-8")
    if rng.random() < 0.2:
        data = data.replace(b"\n", b"\r\n")
    if rng.random() < 0.15:
        data = b"\xef\xbb\xbf" + data
    return data


def expected_values(tree, slots):
    """Per slot: ('value', text), ('error', mark) or ('skip', why)."""
    result = []
    tasks = tree["tasks"]
    for kind, where in slots:
        if kind == "name":
            node = tree.get("name")
        elif kind == "wenv":
            node = tree["env"]["W0"]
        elif kind in ("env", "mergeenv"):
            node = tasks[where].get("env", {}).get("V")
        elif kind == "script":
            node = tasks[where]["shell"]
        elif kind == "argv":
            node = tasks[where]["shell"][4]
        elif kind == "description":
            node = tasks[where]["description"]
        elif kind == "matrix":
            vectors = [[v.text for v in values] for values in tasks[where]["matrix"].values()]
            ids = [[]]
            for values in vectors:
                ids = [i + [v] for i in ids for v in values]
            result.append(("value", ["%s[%s]" % (where, ",".join(i)) for i in ids]))
            continue
        else:
            node = tasks[where]["combine"]["to"]
        if node is None:
            result.append(("value", "unset"))
        elif not isinstance(node, Scalar):
            result.append(("skip", "not a scalar"))
        elif node.plain and node.value is None:
            # an empty value has no text to point at: libyaml marks where the next token starts,
            # ruamel where the `:` ended, so only its line is compared
            result.append(("error", None if node.text == "" else (node.mark.line + 1, node.mark.column + 1)))
        else:
            result.append(("value", node.text))
    return result


def run_valid(flowrun, rng, index, work, stats, verbose):
    text, slots = valid_case(rng)
    data = dress(rng, text)
    tree, problem = peer_load(data)
    if problem:
        stats["generator produced invalid YAML (skipped)"] = stats.get("generator produced invalid YAML (skipped)", 0) + 1
        if verbose:
            print("peer refused case %d: %s\n%s" % (index, problem[0], data.decode("utf-8", "replace")[:3000]))
        return []
    expected = expected_values(tree, slots)
    folder = os.path.join(work, "v%d" % index)
    os.makedirs(os.path.join(folder, "out"))
    for kind, where in slots:
        if kind == "path":
            os.makedirs(os.path.join(folder, "p_" + where))
            with open(os.path.join(folder, "p_" + where, "src.txt"), "w") as f:
                f.write("src")
    path = os.path.join(folder, "flow.yaml")
    with open(path, "wb") as f:
        f.write(data)
    differences = []
    schema_ok = schema_accepts(tree)
    errors = [e for e in expected if e[0] == "error"]
    if errors:
        r = subprocess.run([flowrun, "validate", path], capture_output=True, timeout=30)
        out = r.stderr.decode("utf-8", "replace") + r.stdout.decode("utf-8", "replace")
        for _, mark in errors:
            want = "%s:%d:%d: error:" % (path, mark[0], mark[1]) if mark else "error: expected a string for '"
            if r.returncode != 2 or want not in out:
                differences.append("null value: want exit 2 and %s, got %d:\n%s" % (want, r.returncode, out))
        stats["null where a string is expected"] = stats.get("null where a string is expected", 0) + 1
        return differences and [(path, d) for d in differences]
    r = subprocess.run([flowrun, "run", path, "--events", "jsonl", "--keep-going"], capture_output=True, timeout=60,
                       cwd=folder)
    if r.returncode == 2 and not schema_ok:
        stats["refused by flowrun and the schema (an empty script)"] = stats.get(
            "refused by flowrun and the schema (an empty script)", 0) + 1
        return []
    if r.returncode != 0:
        return [(path, "run exited %d (peer and schema %s):\n%s%s" % (
            r.returncode, "accept" if schema_ok else "reject", r.stderr.decode("utf-8", "replace")[-2000:],
            r.stdout.decode("utf-8", "replace")[-2000:]))]
    if not schema_ok:
        differences.append("flowrun ran a file the schema rejects")
    events = [json.loads(line) for line in r.stdout.decode().split("\n") if line.startswith("{")]
    listed = json.loads(subprocess.run([flowrun, "list", "--json", path], capture_output=True, timeout=30).stdout)
    for (kind, where), (verdict, want) in zip(slots, expected):
        stats[kind] = stats.get(kind, 0) + 1
        if verdict != "value":
            continue
        if kind == "name":
            got = events[0].get("workflow")
        elif kind == "description":
            got = next(t["description"] for t in listed if t["id"] == where)
        elif kind == "matrix":
            got = [t["id"] for t in listed if t["id"].startswith(where + "[")]
        elif kind == "path":
            names = [n for n in os.listdir(os.path.join(folder, "p_" + where)) if n != "src.txt"]
            got = names[0] if len(names) == 1 else repr(names)
        else:
            try:
                got = open(os.path.join(folder, "out", "wenv" if kind == "wenv" else where), "rb").read().decode("utf-8")
            except FileNotFoundError:
                got = None
        if got != want:
            differences.append("%s %s: peer %r, flowrun %r" % (kind, where, want[:200], got if got is None else got[:200]))
    return [(path, d) for d in differences]


def schema_accepts(tree):
    try:
        jsonschema.validate(plain_json(tree), SCHEMA)
        return True
    except jsonschema.ValidationError:
        return False


# ---------------------------------------------------------------- invalid files

BASE = """version: 1
env:
  A: "x"
tasks:
  build:
    env:
      V: value
    shell: echo "$V"
  test:
    needs: [build]
    retries: 2
    shell: [echo, 'done']
"""


def mutate(rng, kind):
    """(file bytes, where the error is: (line, col) or None to take the peer's mark, note)."""
    lines = BASE.splitlines()
    if kind == "duplicate-key":
        lines.insert(7, "      V: again")
        return "\n".join(lines) + "\n", (8, 7)
    if kind == "duplicate-task":
        lines += ["  build:", "    shell: true"]
        return "\n".join(lines) + "\n", (13, 3)
    if kind == "wrong-type":
        value = rng.choice(["abc", "-1", "1.5", "[1]", "{a: 1}", "yes", "''", "~", "0x", "1_0"])
        lines[10] = "    retries: " + value
        return "\n".join(lines) + "\n", (11, 14)
    if kind == "unknown-key":
        lines.insert(10, "    retires: 1")
        return "\n".join(lines) + "\n", (11, 5)
    if kind == "indentation":
        lines[7] = "   shell: echo \"$V\""
        return "\n".join(lines) + "\n", None
    if kind == "unclosed-quote":
        lines[7] = '    shell: "echo $V'
        return "\n".join(lines) + "\n", None
    if kind == "unclosed-single":
        lines[11] = "    shell: [echo, 'done]"
        return "\n".join(lines) + "\n", None
    if kind == "tab-indent":
        lines[6] = "\t  V: value"
        return "\n".join(lines) + "\n", (7, 1)
    if kind == "undefined-alias":
        lines[6] = "      V: *nope"
        return "\n".join(lines) + "\n", (7, 10)
    if kind == "recursive-alias":
        lines[11] = "    shell: &loop [echo, *loop]"
        return "\n".join(lines) + "\n", (12, 25)
    if kind == "billion-laughs":
        bomb = ["x-a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
        for level in "bcdefghi":
            previous = chr(ord(level) - 1)
            bomb.append("x-%s: &%s [%s]" % (level, level, ", ".join(["*" + previous] * 9)))
        return "\n".join(["version: 1", "env:"] + ["  " + b.replace("x-", "X_") for b in bomb] +
                         ["tasks:", "  t:", "    shell: [echo, *i]"]) + "\n", "limit"
    if kind == "huge":
        body = "version: 1\ntasks:\n" + "".join("  t%d: {shell: echo %s}\n" % (i, "x" * 100) for i in range(300000))
        return body, "limit"
    if kind == "deep-flow":
        depth = rng.choice([101, 1000, 10000])
        # the limit counts every level: the root, `tasks` and `t` mappings, then 97 lists
        return "version: 1\ntasks:\n  t:\n    shell: " + "[" * depth + "]" * depth + "\n", (4, 12 + 97)
    if kind == "not-utf8":
        text = "\n".join(lines) + "\n"
        return text.replace("value", "val\udce9ue").encode("utf-8", "surrogateescape"), (7, 13)
    if kind == "nul-byte":
        text = "\n".join(lines) + "\n"
        return text.replace("value", "val\x00ue").encode("utf-8"), (7, 13)
    if kind == "nul-escape":
        lines[6] = '      V: "a\\0b"'
        return "\n".join(lines) + "\n", (7, 10)
    if kind == "second-document":
        return "\n".join(lines) + "\n---\nversion: 1\n", (13, 1)
    raise ValueError(kind)


MUTATIONS = ["duplicate-key", "duplicate-task", "wrong-type", "unknown-key", "indentation", "unclosed-quote",
             "unclosed-single", "tab-indent", "undefined-alias", "recursive-alias", "billion-laughs", "huge",
             "deep-flow", "not-utf8", "nul-byte", "nul-escape", "second-document"]


def run_invalid(flowrun, rng, index, work, stats, verbose):
    kind = MUTATIONS[index % len(MUTATIONS)]
    text, where = mutate(rng, kind)
    data = text if isinstance(text, bytes) else text.encode("utf-8")
    if kind not in ("huge",) and rng.random() < 0.3:
        data = data.replace(b"\n", b"\r\n")
    stats[kind] = stats.get(kind, 0) + 1
    path = os.path.join(work, "i%d-%s.yaml" % (index, kind))
    with open(path, "wb") as f:
        f.write(data)
    tree, problem = peer_load(data) if kind not in ("huge", "billion-laughs") else (None, None)
    differences = []
    if tree is not None and kind in ("wrong-type", "unknown-key"):
        if schema_accepts(tree):
            differences.append("the schema accepts this %s file" % kind)
    if where is None and problem:
        marks = [m for m in problem[1:3] if m is not None]
        wants = ["%s:%d:%d: error:" % (path, m.line + 1, m.column + 1) for m in marks]
    elif where is None:
        wants = []  # the peer loads it: flowrun's structural verdict is checked against the schema
    elif where == "limit":
        wants = [path + ":"]
    else:
        wants = ["%s:%d:%d: error:" % (path, where[0], where[1])]
    for command in (["validate", path], ["run", "--dry-run", path], ["graph", path]):
        rss_file = path + ".rss"
        try:
            r = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss_file, flowrun] + command, capture_output=True,
                               timeout=10)
        except subprocess.TimeoutExpired:
            differences.append("%s hung (over 10 s)" % command[0])
            continue
        rss_kb = int(open(rss_file).read().split()[-1])
        out = r.stderr.decode("utf-8", "replace") + r.stdout.decode("utf-8", "replace")
        if r.returncode != 2:
            if where is None and not problem and r.returncode == 0 and schema_accepts(tree):
                continue
            differences.append("%s exited %d:\n%s" % (command[0], r.returncode, out[-1500:]))
        elif wants and not any(w in out for w in wants):
            differences.append("%s: want one of %s, got:\n%s" % (command[0], wants, out[-1500:]))
        if "Fatal error" in out or "Stack dump" in out:
            differences.append("%s crashed:\n%s" % (command[0], out[-1500:]))
        if rss_kb > 400 * 1024:
            differences.append("%s peaked at %d MB" % (command[0], rss_kb // 1024))
        stats["max rss MB"] = max(stats.get("max rss MB", 0), rss_kb // 1024)
        if kind in ("huge", "billion-laughs", "deep-flow"):
            break  # the three commands share the loader
    return [(path, d) for d in differences]


INSERTIONS = [":", ": ", '"', "'", "[", "]", "{", "}", "\t", "&x ", "*x", "!", "%", "@", "`", "- ", "? ", "#", ",", "|",
              ">", "\n", "\n ", "\\", "\x00", "\xe9"]


def random_edit(rng, data):
    """A valid file with one random edit: a character inserted, a character deleted, a line
    dedented or indented."""
    text = data.decode("utf-8")
    where = rng.randrange(len(text))
    line = text.count("\n", 0, where) + 1
    choice = rng.random()
    if choice < 0.5:
        return (text[:where] + rng.choice(INSERTIONS) + text[where:]).encode("utf-8", "surrogateescape"), line
    if choice < 0.75:
        return (text[:where] + text[where + 1:]).encode("utf-8"), line
    lines = text.split("\n")
    line = rng.randrange(len(lines))
    lines[line] = lines[line][1:] if rng.random() < 0.5 else " " + lines[line]
    return "\n".join(lines).encode("utf-8"), line + 1


def run_edited(flowrun, rng, index, work, stats):
    """A generated valid file with one random edit: where the peer finds a syntax error, flowrun
    must fail (exit 2) at the peer's problem or context line; where the peer loads it, a file
    flowrun accepts must pass the schema."""
    text, _ = valid_case(rng)
    data, edited_line = random_edit(rng, dress(rng, text).replace(b"x" * 5000, b"x" * 50).replace(b"x" * 70000, b"x" * 50))
    path = os.path.join(work, "e%d.yaml" % index)
    with open(path, "wb") as f:
        f.write(data)
    tree, problem = peer_load(data)
    try:
        r = subprocess.run([flowrun, "validate", path], capture_output=True, timeout=10)
    except subprocess.TimeoutExpired:
        return [(path, "validate hung")]
    out = r.stderr.decode("utf-8", "replace") + r.stdout.decode("utf-8", "replace")
    if r.returncode not in (0, 2) or "Fatal error" in out:
        return [(path, "validate exited %d:\n%s" % (r.returncode, out[-1500:]))]
    def count(key):
        stats[key] = stats.get(key, 0) + 1
    if tree is not None:
        count("peer loads")
        if r.returncode == 0 and not schema_accepts(tree):
            return [(path, "flowrun accepts a file the schema rejects")]
        return []
    if problem[0].startswith("peer failed"):
        count("peer failed (skipped)")
        return []
    if problem[0] in ("second document", "empty"):
        count("peer: " + problem[0])
        return [] if r.returncode == 2 else [(path, "flowrun accepts a file with %s" % problem[0])]
    count("peer finds a problem")
    if r.returncode == 0:
        if problem[0].startswith("duplicate key") or "found character '\\t'" in problem[0] or "\\t" in problem[0]:
            count("flowrun accepts, peer refuses: " + problem[0][:40])
            return []
        return [(path, "flowrun accepts what the peer refuses (%s at %s)" % (problem[0], problem[1]))]
    if "'\\t'" in problem[0] and "error: while " not in out and "error: found " not in out:
        # ruamel refuses a tab after `key:` or `-`, which YAML 1.2 allows and libyaml reads;
        # flowrun then reports what it found in the value instead
        count("peer refuses a tab separator; flowrun reads on")
        return []
    lines = {m.line + 1 for m in problem[1:3] if m is not None} | {edited_line}
    got = re.findall(re.escape(path) + r":(\d+):(\d+): error", out)
    if not got:
        return [(path, "no FILE:LINE:COL in:\n" + out[-800:])]
    if not any(int(line) in lines for line, _ in got):
        count("error on another line than the peer's and the edit's")
        return [(path, "peer: %s at line(s) %s; flowrun:\n%s" % (problem[0], sorted(lines), out[-800:]))]
    count("error on the peer's line or the edited one")
    return []


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flowrun", required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--invalid-cases", type=int, default=None, help="default: a third of --cases")
    parser.add_argument("--edited-cases", type=int, default=None, help="valid files with one random edit; default --cases")
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    flowrun = os.path.abspath(args.flowrun)
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="yamlpeer-")
    valid_stats, invalid_stats, edited_stats, differences = {}, {}, {}, []
    try:
        for index in range(args.cases):
            differences += run_valid(flowrun, rng, index, work, valid_stats, args.verbose) or []
        for index in range(args.invalid_cases if args.invalid_cases is not None else max(len(MUTATIONS), args.cases // 3)):
            differences += run_invalid(flowrun, rng, index, work, invalid_stats, args.verbose)
        for index in range(args.edited_cases if args.edited_cases is not None else args.cases):
            differences += run_edited(flowrun, rng, index, work, edited_stats)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print("valid cases: %d; values checked by slot: %s" % (args.cases, json.dumps(valid_stats, sort_keys=True)))
    print("invalid cases: %s" % json.dumps(invalid_stats, sort_keys=True))
    print("edited cases: %s" % json.dumps(edited_stats, sort_keys=True))
    for path, difference in differences:
        print("DIFFERENCE %s: %s" % (path, difference))
    print("%d differences" % len(differences))
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
