#!/usr/bin/env python3
"""flowrun's `matrix:` against GitHub Actions' documented expansion, over generated matrices.

The model is written from GitHub's docs ("Running variations of jobs in a workflow"):
- the combinations are the product of the vectors in key order, the last key varying fastest;
- `exclude` is applied first; an entry drops every combination it matches on the keys it gives;
- then each `include` entry, in order, is added to every original combination (after exclude)
  on which none of its pairs would overwrite an original matrix value; its other keys are added,
  and may overwrite what an earlier include added; an entry added to none becomes a combination
  of its own (and such a combination is not extended by later entries);
- with no vectors at all (include only), each include entry is a combination;
- at most 256 combinations.

Each case is a random matrix (0-3 vectors, values that look like numbers, booleans or names,
partial and full excludes, includes that extend, overwrite or add), written as a workflow whose
task records its env. flowrun's `list --json` ids (set and order), `--dry-run`'s env line and
the MATRIX_* env each task saw in a real run, and `${matrix.KEY}` in an output path are compared
with the model. Values are compared as text as written (flowrun's documented choice: `3.10`
stays `3.10`); the cases where GitHub's typed reading differs are counted apart, as are the
documented refusals (README "Matrix"): a new combination that gives no matrix key; a value
listed twice; two include entries making the same new id; an include-only entry's value that
cannot be part of an id.

  python3 scripts/matrixpeer.py --flowrun .build/debug/flowrun --cases 300 --seed 1
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

VALUES = ["linux", "mac", "win", "3.10", "3.11", "3.1", "1", "2", "10", "true", "false",
          "a-b", "x_y", "v1.2.3", "0", "012"]
EXTRA_KEYS = ["extra", "flag", "note"]
EXTRA_VALUES = ["yes", "no", "1", "true", "hello world", "x"]


def typed(text):
    """The value GitHub's YAML reading gives an unquoted scalar, as text (`3.10` -> `3.1`)."""
    if text in ("true", "false"):
        return text
    try:
        if text.isdigit() or (text.startswith("-") and text[1:].isdigit()):
            return str(int(text, 10))
        number = float(text)
        return repr(number).rstrip("0").rstrip(".") if "." in repr(number) else repr(number)
    except ValueError:
        return text


def github(vectors, exclude, include, limit=256):
    """The combinations (list of ordered [key, value] lists) or an error name."""
    keys = [k for k, _ in vectors]
    for _, values in vectors:
        if not values:
            return "empty-vector"
    combos = [[]]
    for key, values in vectors:
        combos = [c + [[key, v]] for c in combos for v in values]
    if not vectors:
        combos = []
    for entry in exclude:
        for k in entry:
            if k not in keys:
                return "exclude-unknown-key"
    combos = [c for c in combos if not any(all(dict(c).get(k) == v for k, v in e.items()) for e in exclude)]
    original = set(keys)
    added = []
    for entry in include:
        matched = False
        for c in combos:
            values = dict(c)
            if all(values[k] == v for k, v in entry.items() if k in original):
                matched = True
                for k, v in entry.items():
                    if k in original:
                        continue
                    for pair in c:
                        if pair[0] == k:
                            pair[1] = v
                            break
                    else:
                        c.append([k, v])
        if not matched:
            added.append([[k, v] for k, v in entry.items()])
    combos = combos + added
    if not combos:
        return "no-combination"
    if len(combos) > limit:
        return "too-many"
    return combos


def scalar(text, rng):
    """YAML for a value: quoted or plain at random when plain reads back as the same text."""
    plain_ok = all(ch.isalnum() or ch in "._-" for ch in text) and text != ""
    if plain_ok and rng.random() < 0.5:
        return text
    return json.dumps(text)


def generate(rng):
    nkeys = rng.choice([0, 1, 1, 2, 2, 2, 3, 3])
    keys = rng.sample(["os", "py", "mode", "k_4"], nkeys)
    vectors = []
    for k in keys:
        n = rng.choice([1, 2, 2, 3, 4])
        vectors.append((k, rng.sample(VALUES, n)))
    if rng.random() < 0.03 and vectors:   # a value listed twice (flowrun refuses, documented)
        vectors[0][1].append(vectors[0][1][0])
    if rng.random() < 0.02:               # too many
        vectors = [("a%d" % i, rng.sample(VALUES, 7)) for i in range(3)]
        keys = [k for k, _ in vectors]
    exclude = []
    for _ in range(rng.choice([0, 0, 1, 2, 3])):
        if not keys:
            break
        sub = rng.sample(keys, rng.randint(1, len(keys)))
        exclude.append({k: rng.choice(dict(vectors)[k] + ["nothere"]) for k in sub})
    include = []
    for _ in range(rng.choice([0, 0, 1, 2, 3] if keys else [1, 2, 3])):
        entry = {}
        r = rng.random()
        if keys:
            if r < 0.4:      # extend some (subset of keys, values from the matrix)
                for k in rng.sample(keys, rng.randint(0, len(keys))):
                    entry[k] = rng.choice(dict(vectors)[k])
            elif r < 0.8:    # a full combination, maybe new
                for k in keys:
                    entry[k] = rng.choice(dict(vectors)[k] + ["new1", "9.9"])
            else:            # partial with a value that matches nothing (new, missing keys)
                k = rng.choice(keys)
                entry[k] = "other"
        else:
            entry["site"] = rng.choice(["prod", "stage", "dev"])
            entry["dc"] = rng.choice(["a", "b"])
        for k in rng.sample(EXTRA_KEYS, rng.choice([0, 1, 1, 2])):
            entry[k] = rng.choice(EXTRA_VALUES)
        include.append(entry)
    return vectors, exclude, include


def write(path, vectors, exclude, include, rng, paths=True):
    lines = ["version: 1", "tasks:", "  test:", "    matrix:"]
    for k, values in vectors:
        lines.append("      %s: [%s]" % (k, ", ".join(scalar(v, rng) for v in values)))

    def maps(entries):
        return "[" + ", ".join("{" + ", ".join("%s: %s" % (k, scalar(v, rng)) for k, v in e.items()) + "}"
                               for e in entries) + "]"
    if exclude:
        lines.append("      exclude: " + maps(exclude))
    if include:
        lines.append("      include: " + maps(include))
    named = [k for k, _ in vectors]
    # `${matrix.KEY}` in a path: only when every combination gives every key (one that include
    # made with some keys only makes such a path an error, which a case of its own checks).
    out = "out/" + "-".join("${matrix.%s}" % k for k in named) + ".path" if named and paths else None
    if out:
        lines.append("    outputs: [%s]" % json.dumps(out))
    script = 'env | grep ^MATRIX_ | sort > "out/$FLOWRUN_TASK.env"'
    if out:
        script += '; : > "out/' + "-".join("$MATRIX_%s" % k.upper() for k in named) + '.path"'
    lines.append("    shell: %s" % json.dumps(script))
    lines += ["  report:", "    needs: test", "    shell: \"true\""]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def expected_id(combo, keys):
    values = dict(combo)
    if keys:
        return "test[%s]" % ",".join(values[k] for k in keys if k in values)
    return "test[%s]" % ",".join(v for _, v in combo)


def run_case(flowrun, folder, vectors, exclude, include, rng):
    os.makedirs(os.path.join(folder, "out"), exist_ok=True)
    path = os.path.join(folder, "flowrun.yaml")
    keys = [k for k, _ in vectors]
    model = github(vectors, exclude, include)
    full = isinstance(model, list) and all(set(keys) <= set(dict(c)) for c in model)
    write(path, vectors, exclude, include, rng, paths=full)
    listed = subprocess.run([flowrun, "list", "--json", path], capture_output=True, text=True)
    if listed.returncode != 0:
        return ("refused", model, listed.stderr.strip())
    got = [t["id"] for t in json.loads(listed.stdout) if t["id"] != "report"]
    if isinstance(model, str):
        return ("accepted-model-refuses", model, got)
    want = [expected_id(c, keys) for c in model]
    if got != want:
        return ("ids", want, got)
    dry = subprocess.run([flowrun, "run", "--dry-run", "--no-record", path], capture_output=True, text=True)
    run = subprocess.run([flowrun, "run", "--no-record", "--events", "plain", path], capture_output=True, text=True,
                         cwd=folder)
    if run.returncode != 0:
        return ("run-failed", run.stdout[-400:] + run.stderr[-400:], None)
    for combo, tid in zip(model, want):
        env = {}
        with open(os.path.join(folder, "out", tid + ".env")) as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition("=")
                env[k] = v
        want_env = {"MATRIX_" + k.upper(): v for k, v in combo}
        if env != want_env:
            return ("env", {tid: want_env}, {tid: env})
        if full and keys and not os.path.exists(
                os.path.join(folder, "out", "-".join(dict(combo)[k] for k in keys) + ".path")):
            return ("path", tid, None)
    if "report" not in dry.stdout or dry.returncode != 0:
        return ("dry-run", dry.stdout[-300:], None)
    return ("same", None, None)


def documented(vectors, exclude, include, verdict, model, got):
    """Why a refusal is a documented choice of flowrun's, or None."""
    if verdict != "refused":
        return None
    keys = [k for k, _ in vectors]
    if any(len(set(v)) != len(v) for _, v in vectors) and "twice" in got:
        return "value listed twice"
    if isinstance(model, str):
        return "both refuse (%s)" % model
    if "gives no matrix key to name one of its own" in got:
        return "new combination gives no matrix key"
    if "an 'include' repeats a combination" in got:
        return "two include entries make one new id"
    if not keys and "invalid value" in got:
        return "include-only value not an id's characters"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--flowrun", default=".build/debug/flowrun")
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the folders of differing cases")
    args = parser.parse_args()
    flowrun = os.path.abspath(args.flowrun)
    rng = random.Random(args.seed)
    counts = {}
    differing = 0
    typed_differs = 0
    root = tempfile.mkdtemp(prefix="matrixpeer-")
    for case in range(args.cases):
        vectors, exclude, include = generate(rng)
        folder = os.path.join(root, "case%04d" % case)
        os.makedirs(folder)
        verdict, want, got = run_case(flowrun, folder, vectors, exclude, include, rng)
        # GitHub reads unquoted 3.10 as 3.1 and compares typed values: count where that changes the result.
        tv = [(k, [typed(v) for v in vs]) for k, vs in vectors]
        te = [{k: typed(v) for k, v in e.items()} for e in exclude]
        ti = [{k: typed(v) for k, v in e.items()} for e in include]
        m1, m2 = github(vectors, exclude, include), github(tv, te, ti)
        if isinstance(m1, list) and isinstance(m2, list):
            if [[typed(v) for _, v in c] for c in m1] != [[v for _, v in c] for c in m2]:
                typed_differs += 1
        reason = documented(vectors, exclude, include, verdict, want, got)
        key = verdict if reason is None else "documented: " + reason
        counts[key] = counts.get(key, 0) + 1
        if verdict != "same" and reason is None:
            differing += 1
            print("case %d: %s\n  matrix %s\n  exclude %s\n  include %s\n  model %s\n  flowrun %s" % (
                case, verdict, vectors, exclude, include, want, got))
        elif not args.keep:
            shutil.rmtree(folder)
    print("cases %d, differing %d; by verdict: %s" % (args.cases, differing, json.dumps(counts, sort_keys=True)))
    print("cases where GitHub's typed reading (3.10 -> 3.1) gives other combinations: %d (documented)" % typed_differs)
    if not args.keep and differing == 0:
        shutil.rmtree(root)
    else:
        print("folders:", root)
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()
