#!/usr/bin/env python3
"""Checks that schemas/workflow.schema.json agrees with `flowrun validate` on every fixture.

Usage: schema_agreement.py PATH/TO/flowrun

The schema is what editors (yaml-language-server) check while a user types, so it must accept
what flowrun accepts and reject what flowrun rejects for structural reasons. For every .yaml
under Tests/FlowrunTests/Fixtures/{valid,invalid,hostile} and workflows/ (if present):

  valid/, workflows/    the schema and flowrun both accept it;
  invalid/structural/   both reject it, except the files in SCHEMA_CANNOT, which the schema
                        accepts (and the entry is stale if it no longer does);
  invalid/semantic/     the schema accepts it and flowrun rejects it (graph, variables, queues);
  hostile/              both reject it.

Files are read as flowrun reads them: plain scalars typed as Node.scalarKind types them
(YAML 1.2 core-like: `yes`/`no` are strings, no timestamps, unlike PyYAML's YAML 1.1 default),
mapping keys as their text. A file PyYAML cannot load (syntax errors, binary garbage, unknown
tags, null or non-scalar keys, which JSON cannot hold) counts as rejected by the schema. Aliases
are bounded as flowrun bounds them (1,000,000 expanded nodes), so a billion-laughs file (in any
folder) is rejected at once instead of walked; flowrun must reject it too. Each flowrun run is
time-limited.
"""
import json
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import yaml

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "Tests/FlowrunTests/Fixtures"
MAX_NODES = 1_000_000  # YAMLLimits.maxAliasExpansion

# invalid/structural files that only flowrun can reject, each with why a JSON Schema cannot.
DUPLICATE = "duplicate keys: PyYAML, like any YAML-to-JSON reader, keeps one value; the schema never sees two"
SCHEMA_CANNOT = {
    "duplicate-key-nested.yaml": DUPLICATE,
    "duplicate-key-task.yaml": DUPLICATE,
    "duplicate-key-top-level.yaml": DUPLICATE,
    "duplicate-task-id.yaml": DUPLICATE,
    "url-path-not-utf8.yaml": "whether a URL's percent-encoded bytes decode to UTF-8 needs the URL parsed; a pattern on the string would have to spell UTF-8 out",
    "nul-in-values.yaml": "a NUL from an escape is a valid JSON string; only a pattern on every string could refuse it",
    "version-float.yaml": "JSON has one number type: 1.0 equals 1, and draft 2020-12 counts 1.0 as an integer",
}


class FlowrunLoader(yaml.SafeLoader):
    """PyYAML typing plain scalars as flowrun does, with mapping keys as their text."""

    def construct_mapping(self, node, deep=False):
        self.flatten_mapping(node)  # `<<` merge keys, as flowrun merges them
        for key, _ in node.value:
            if not isinstance(key, yaml.ScalarNode) or key.tag == "tag:yaml.org,2002:null":
                raise yaml.constructor.ConstructorError(None, None, "key is not a string", key.start_mark)
        return {key.value: self.construct_object(value, deep=deep) for key, value in node.value}

    def construct_yaml_int(self, node):
        value = int(node.value)
        return value if -2**63 <= value < 2**63 else float(value)  # Swift's Int(text), else Double

    def construct_yaml_float(self, node):
        text = node.value.lower().replace(".inf", "inf").replace(".nan", "nan")
        return float.fromhex(text) if "x" in text else float(text)


FlowrunLoader.yaml_implicit_resolvers = {}
for tag, pattern in [
    ("null", r"~|null|Null|NULL|"),
    ("bool", r"true|True|TRUE|false|False|FALSE"),
    ("int", r"[-+]?[0-9]+"),
    ("float", r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"  # what Swift's Double(text) takes
              r"|[-+]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][-+]?[0-9]+)?"
              r"|[-+]?(?:[iI][nN][fF](?:[iI][nN][iI][tT][yY])?|[nN][aA][nN])|\.inf|-\.inf|\.nan|\.Inf|\.NaN"),
    ("merge", r"<<"),
]:
    FlowrunLoader.add_implicit_resolver(f"tag:yaml.org,2002:{tag}", re.compile(rf"^(?:{pattern})$"), None)
FlowrunLoader.add_constructor("tag:yaml.org,2002:int", FlowrunLoader.construct_yaml_int)
FlowrunLoader.add_constructor("tag:yaml.org,2002:float", FlowrunLoader.construct_yaml_float)


def expanded_size(value, sizes, open_):
    """Nodes `value` stands for with every alias expanded; None for a recursive alias."""
    if not isinstance(value, (dict, list)):
        return 1
    if id(value) in open_:
        return None
    if id(value) not in sizes:
        open_.add(id(value))
        children = [expanded_size(v, sizes, open_) for v in (value.values() if isinstance(value, dict) else value)]
        open_.discard(id(value))
        sizes[id(value)] = None if None in children else 1 + sum(children)
    return sizes[id(value)]


def schema_accepts(validator, path):
    """(accepted, reason) for the file as the schema sees it."""
    try:
        data = yaml.load(path.read_bytes(), Loader=FlowrunLoader)
        size = expanded_size(data, {}, set())
    except (yaml.YAMLError, RecursionError, ValueError) as error:
        return False, "rejected by YAML: " + (str(error).splitlines() or ["nested too deeply"])[0]
    if size is None or size > MAX_NODES:
        return False, "rejected by YAML: aliases expand beyond flowrun's bound"
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    return error is None, error and f"{'/'.join(map(str, error.absolute_path)) or '(top)'}: {error.message[:120]}"


def flowrun_accepts(flowrun, path):
    """(accepted, first line of output) of `flowrun validate NAME`, run beside the file."""
    try:
        # A hang guard only: a verdict of its own (refused), so long that a loaded machine never
        # reaches it (the suite runs beside every other test, on two cores).
        result = subprocess.run([flowrun, "validate", path.name], cwd=path.parent, capture_output=True,
                                text=True, errors="replace", timeout=600)
    except subprocess.TimeoutExpired:
        return False, "flowrun timed out"
    except OSError as error:  # no binary: no verdict at all, rather than a wrong one
        sys.exit(f"cannot run {flowrun}: {error}")
    return result.returncode == 0, (result.stderr or result.stdout).strip().split("\n")[0]


def expectation(path):
    """(schema should accept, flowrun should accept), by the file's folder."""
    parts = path.relative_to(ROOT).parts
    if "valid" in parts or parts[0] == "workflows":
        return True, True
    return "semantic" in parts or ("structural" in parts and path.name in SCHEMA_CANNOT), False


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    flowrun = str(Path(sys.argv[1]).absolute())
    schema = json.loads((ROOT / "schemas/workflow.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    folders = [FIXTURES / name for name in ("valid", "invalid", "hostile")] + [ROOT / "workflows"]
    files = sorted(file for folder in folders if folder.is_dir() for file in folder.rglob("*.yaml"))
    failed = 0
    for path in files:
        (want_schema, want_flowrun), problems = expectation(path), []
        got_schema, schema_says = schema_accepts(validator, path)
        got_flowrun, flowrun_says = flowrun_accepts(flowrun, path)
        if got_schema != want_schema:
            stale = " (stale SCHEMA_CANNOT entry)" if path.name in SCHEMA_CANNOT else ""
            problems.append(f"schema {'accepts' if got_schema else 'rejects'}{stale}: {schema_says or 'valid'}")
        if got_flowrun != want_flowrun:
            problems.append(f"flowrun {'accepts' if got_flowrun else 'rejects'}: {flowrun_says}")
        if problems:
            failed += 1
            print(f"{path.relative_to(ROOT)}: " + "; ".join(problems))
    passed = len(files) - failed
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
