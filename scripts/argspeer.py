#!/usr/bin/env python3
"""`flowrun FILE TASK... -- ARGS...` against what sh, bash and python receive, over generated argv.

Each case is a random argument vector: words with spaces, tabs, newlines, both quotes, `$`,
backticks, backslashes, glob and shell operator characters, `~`, `!`, empty words, non-ASCII,
words that look like options (`-x`, `--flag=1`, `--`). They are handed to four named tasks:
- a `sh` script and a `bash` script each write their "$@", then read FLOWRUN_ARGS back with
  `eval "set -- $FLOWRUN_ARGS"` and write "$@" again: all four must be the vector as given;
- a `python` script writes sys.argv[1:], an argv list (`shell: [python3, dump.py]`) its argv;
- a need that was not named must get no arguments and no FLOWRUN_ARGS;
- `--dry-run` with the same vector must succeed and show `args:`.
Then, once per run, the interpreters' flags as issue 22 item 3 and README "Interpreters" say:
bash stops at `false | cat` (pipefail) and at a failing command (errexit); sh stops at a
failing command and goes on after `false | cat`; bash reads no ~/.bashrc (--norc).

  python3 scripts/argspeer.py --flowrun .build/debug/flowrun --cases 200 --seed 1
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile

PIECES = ["a", "b c", " ", "\t", "\n", "'", '"', "$", "$HOME", "${X}", "`id`", "$(id)", "\\", "\\n", "*", "?",
          "[a]", "~", "!", "#", ";", "&", "|", "<", ">", "(", ")", "{}", "é", "字", "🙂", "=", "%", "@", ",", "x=y"]
WORDS = ["", "-x", "--flag=1", "--", "-", "-n", "-e", "--help"]

WORKFLOW = r"""version: 1
tasks:
  base:
    shell: 'printf %s "$#" > out/base_n; printf %s "${FLOWRUN_ARGS-unset}" > out/base_env'
  t_sh:
    needs: base
    shell: |
      for a in "$@"; do printf '%s\0' "$a"; done > out/sh_args
      eval "set -- $FLOWRUN_ARGS"
      for a in "$@"; do printf '%s\0' "$a"; done > out/sh_eval
  t_bash:
    needs: base
    interpreter: bash
    shell: |
      for a in "$@"; do printf '%s\0' "$a"; done > out/bash_args
      eval "set -- $FLOWRUN_ARGS"
      for a in "$@"; do printf '%s\0' "$a"; done > out/bash_eval
  t_py:
    needs: base
    interpreter: python
    shell: |
      import os, sys
      open("out/py_args", "wb").write(b"".join(os.fsencode(a) + b"\0" for a in sys.argv[1:]))
  t_argv:
    needs: base
    shell: [python3, dump.py, out/argv_args]
"""

DUMP = """import os, sys
open(sys.argv[1], "wb").write(b"".join(os.fsencode(a) + b"\\0" for a in sys.argv[2:]))
"""

FLAGS = r"""version: 1
tasks:
  bash_pipe: {interpreter: bash, shell: "false | cat; touch out/bash_pipe_went_on"}
  bash_errexit: {interpreter: bash, shell: "false; touch out/bash_errexit_went_on"}
  bash_rc: {interpreter: bash, shell: "touch out/bash_ran; test -z \"$RC_READ\""}
  sh_pipe: {shell: "false | cat; touch out/sh_pipe_went_on"}
  sh_errexit: {shell: "false; touch out/sh_errexit_went_on"}
"""


def vector(rng):
    words = []
    for _ in range(rng.randint(0, 6)):
        if rng.random() < 0.25:
            words.append(rng.choice(WORDS))
        else:
            words.append("".join(rng.choice(PIECES) for _ in range(rng.randint(1, 4))))
    return words


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    return [w.decode() for w in data.split(b"\0")[:-1]] if data else []


def check_flags(flowrun, root):
    folder = os.path.join(root, "flags")
    os.makedirs(os.path.join(folder, "out"))
    home = os.path.join(folder, "home")
    os.makedirs(home)
    with open(os.path.join(home, ".bashrc"), "w") as f:
        f.write("export RC_READ=1\n")
    with open(os.path.join(folder, "flowrun.yaml"), "w") as f:
        f.write(FLAGS)
    env = {"PATH": os.environ["PATH"], "HOME": home}
    run = subprocess.run([flowrun, "run", "--no-record", "--keep-going", "--events", "plain", "flowrun.yaml"],
                         cwd=folder, env=env, capture_output=True, text=True)
    out = os.path.join(folder, "out")
    problems = []
    if os.path.exists(os.path.join(out, "bash_pipe_went_on")):
        problems.append("bash went on after 'false | cat' (no pipefail)")
    if os.path.exists(os.path.join(out, "bash_errexit_went_on")):
        problems.append("bash went on after 'false' (no errexit)")
    if os.path.exists(os.path.join(out, "sh_errexit_went_on")):
        problems.append("sh went on after 'false' (no errexit)")
    if not os.path.exists(os.path.join(out, "sh_pipe_went_on")):
        problems.append("sh stopped at 'false | cat' (POSIX sh has no pipefail: it goes on)")
    if not os.path.exists(os.path.join(out, "bash_ran")):
        problems.append("the bash task did not run: %s" % run.stdout[-300:])
    elif "[bash_rc] failed" in run.stdout:
        problems.append("bash read ~/.bashrc")
    return problems, run.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--flowrun", default=".build/debug/flowrun")
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    flowrun = os.path.abspath(args.flowrun)
    rng = random.Random(args.seed)
    root = tempfile.mkdtemp(prefix="argspeer-")
    differing = 0
    problems, _ = check_flags(flowrun, root)
    for problem in problems:
        print("interpreter flags:", problem)
    differing += len(problems)
    for case in range(args.cases):
        words = vector(rng)
        folder = os.path.join(root, "case%04d" % case)
        os.makedirs(os.path.join(folder, "out"))
        with open(os.path.join(folder, "flowrun.yaml"), "w") as f:
            f.write(WORKFLOW)
        with open(os.path.join(folder, "dump.py"), "w") as f:
            f.write(DUMP)
        command = [flowrun, "run", "--no-record", "--events", "plain", "flowrun.yaml", "t_sh", "t_bash", "t_py",
                   "t_argv", "--"] + words
        run = subprocess.run(command, cwd=folder, capture_output=True)
        found = []
        if run.returncode != 0:
            found.append("exit %d: %s" % (run.returncode, (run.stdout + run.stderr).decode(errors="replace")[-500:]))
        else:
            for name in ["sh_args", "sh_eval", "bash_args", "bash_eval", "py_args", "argv_args"]:
                got = read(os.path.join(folder, "out", name))
                if got != words:
                    found.append("%s: %r" % (name, got))
            with open(os.path.join(folder, "out", "base_n")) as f:
                if f.read() != "0":
                    found.append("the need got arguments")
            with open(os.path.join(folder, "out", "base_env")) as f:
                if f.read() != "unset":
                    found.append("the need got FLOWRUN_ARGS")
            dry = subprocess.run([flowrun, "run", "--dry-run", "--no-record", "flowrun.yaml", "t_sh", "--"] + words,
                                 cwd=folder, capture_output=True)
            if dry.returncode != 0 or (words and b"args:" not in dry.stdout):
                found.append("dry-run: exit %d %r" % (dry.returncode, dry.stdout[-300:] + dry.stderr[-300:]))
        if found:
            differing += 1
            print("case %d: words %r" % (case, words))
            for line in found:
                print("  " + line)
        else:
            shutil.rmtree(folder)
    print("cases %d (+1 interpreter-flags run), differing %d" % (args.cases, differing))
    if differing == 0:
        shutil.rmtree(root)
    else:
        print("folders:", root)
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()
