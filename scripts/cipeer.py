#!/usr/bin/env python3
"""flowrun's console and CI views read as their consumers read them, over generated workflows.

Each case is a random workflow of 2-8 tasks (ids of 64 characters, `-x`, `a.b`, matrix
combinations `m[3.10,-]`, an included `ns:t`) whose output is hostile: GitHub's fold and stop
commands (`::endgroup::`, `  ::group::x`, `x ##[endgroup] y`, `::stop-commands::T` left
unresumed), a tool's own `::error file=a:b,line=1::`, forged flowrun lines, `%0A`, no final
newline, CR-only redraws, a 100,000-byte line, bytes that are not UTF-8, escape sequences; some
tasks fail, some are allowed to (`continue_on_error`), one's argv names a program
`##[error]...` that cannot start (a hostile reason). Each case runs:

- under GitHub Actions (`GITHUB_ACTIONS=true`, half with `-v`, whose echoed scripts hold
  `##[error]`, and with workflow names such as `##[error]name`): stdout read with the runner's rules
  (actions/runner ActionCommand: `::NAME PROPS::DATA` after leading white space, `##[NAME]DATA`
  anywhere, names without case, `::stop-commands::T` until `::T::`, data escapes %25 %0D %0A,
  property escapes also %3A %2C): every fold opened by flowrun is `::group::ID` of a task,
  never nested, always closed, commands never left stopped; each task's output lines are
  inside its fold; each failure is exactly one `::error::ID failed: REASON` (`::warning::` for
  an allowed one); no other error or warning outside a fold (a forged annotation);
- in plain mode (`CI=true`, -j 4): each task's lines, as README says they are made (split at
  \\n, \\r before it dropped, 64 KiB pieces, U+FFFD, escape sequences removed, a CR restarting
  the line), appear whole, in order, as `[ID] | LINE` / `[ID] ! LINE`; one final line per task;
- `--junit`: valid against junit-10.xsd; counts as Jenkins reads them; (classname, name)
  unique and naming every task; system-out holds the task's lines (XML 1.0 text).

Then fixed cases: a workflow file whose path holds `\\r , : %0A ::` under GitHub (the
annotation's `file=` decodes to the path, its message to the console's); validation messages
quoting a `\\r`; a Ctrl-C and a timeout under GitHub (folds closed); `--junit /dev/full`,
`--events-file /dev/full`, stdout /dev/full and `| head -1` (exit status and message per
README, no task left running); and the live view under a pty (pyte at 20x80, 40x200, 5x30):
the summary's last line, no line wider than the screen, a task's SGR colour kept and other
escapes dropped, NO_COLOR honoured.

  python3 scripts/cipeer.py --flowrun .build/release/flowrun --seed 1 --cases 20
Prints each difference and a count; exits 1 if any.
"""
import argparse
import os
import pty
import random
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
XSD = os.path.join(HERE, "..", "Tests", "FlowConsoleTests", "junit-10.xsd")

RUNNER_COMMANDS = {"add-mask", "add-matcher", "add-path", "debug", "echo", "endgroup", "error", "group", "notice",
                   "remove-matcher", "save-state", "set-env", "set-output", "stop-commands", "warning"}
OWN_STOP = re.compile(r"::stop-commands::flowrun-[0-9a-f]{32}\Z")
OWN_RESUME = re.compile(r"::flowrun-[0-9a-f]{32}::\Z")

IDS = ["x" * 64, "-x", "a.b", "a_b", "A.B", "1st.setup", "t-", "__", "build", "z9"]
PAYLOADS = [b"::endgroup::\n", b"  ::group::forged\n", b"x ##[endgroup] y\n", b"::stop-commands::tok%d\n",
            b"::stop-commands::group\n", b"::error file=a:b,line=1::tool error\n", b"[other] failed in 0.0s: forged\n",
            b"pct %0A %25 done\n", b"a\rb\rc\n", b"crlf\r\n", b"bad \xff\xfe utf8\n",
            b"\x1b[31mred\x1b[0m \x1b]0;title\x07t \x1b[2J\n", b"tab\there\n", b"##[error]v1 forged\n",
            b"  \n", b"\n"]


def unescape(text, pairs):
    for code, char in pairs:
        text = text.replace(code, char)
    return text


def unescape_data(text):
    return unescape(text, [("%0D", "\r"), ("%0A", "\n"), ("%25", "%")])


def unescape_property(text):
    return unescape(text, [("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")])


def runner_command(line, stop_token=None):
    """(name, properties, data) as the runner reads `line`, or None for text."""
    def known(name):
        return name.lower() == stop_token.lower() if stop_token is not None else name.lower() in RUNNER_COMMANDS
    trimmed = line.lstrip()
    if trimmed.startswith("::"):
        end = trimmed.find("::", 2)
        if end >= 0:
            info = trimmed[2:end]
            name, _, props = info.partition(" ")
            if known(name):
                properties = {}
                for pair in props.strip().split(","):
                    key, eq, value = pair.partition("=")
                    if pair and eq and key and value:
                        properties[key] = unescape_property(value)
                return name.lower(), properties, unescape_data(trimmed[end + 2:])
    start = line.find("##[")
    if start >= 0:
        close = line.find("]", start)
        if close >= 0:
            name = line[start + 3:close].partition(" ")[0]
            if known(name):
                return name.lower(), {}, line[close + 1:]
    return None


def read_github(text, task_ids):
    """Reads a log as the runner does: (folds {title: [raw lines]}, annotations outside folds
    [(kind, props, data)], problems)."""
    problems, folds, annotations = [], {}, []
    stop, group = None, None
    for line in text.split("\n")[:-1]:
        command = runner_command(line, stop)
        if stop is not None:
            if command:
                stop = None
            if group is not None:
                folds[group].append(line)
            continue
        if command is None:
            if group is not None:
                folds[group].append(line)
            continue
        name, props, data = command
        if name == "group":
            if group is not None:
                problems.append(f"fold {group!r} not closed when {line!r} opens another")
            group = data
            if data not in task_ids and not data.endswith(" (continued)"):
                problems.append(f"a fold titled {data!r}, not a task: {line!r}")
            folds.setdefault(group, [])
        elif name == "endgroup":
            if group is None:
                problems.append(f"{line!r} with no fold open")
            group = None
        elif name == "stop-commands":
            if group is not None:
                folds[group].append(line)
            # Today's runner refuses a token that is empty or names a command, and goes on.
            if data and data.lower() not in RUNNER_COMMANDS | {"pause-logging"}:
                stop = data
            if group is None and not OWN_STOP.match(line):
                problems.append(f"commands stopped outside a fold: {line!r}")
        elif group is not None:
            # A tool's own commands work in its fold; flowrun's echo of its script (-v) is text.
            if line.startswith(f"[{group}] $ "):
                problems.append(f"flowrun's echo of {group!r}'s command is read as a command: {line!r}")
            folds[group].append(line)
        elif name in ("error", "warning", "notice"):
            annotations.append((name, props, data))
    if group is not None:
        problems.append(f"fold {group!r} never closed")
    if stop is not None:
        problems.append(f"commands left stopped at the end of the log (token {stop!r})")
    return folds, annotations, problems


def sanitized(text):
    """README's rules for a task's text on the console (ConsoleText)."""
    out, i, line_start = [], 0, 0
    while i < len(text):
        c = text[i]
        o = ord(c)
        i += 1
        if c == "\t":
            out.append(c)
        elif c == "\r":
            if i < len(text) and text[i] == "\n" or i == len(text):
                continue
            del out[line_start:]
        elif c == "\x1b":
            if i < len(text):
                n = text[i]
                i += 1
                if n == "[":
                    while i < len(text) and 0x20 <= ord(text[i]) <= 0x7E:
                        i += 1
                        if ord(text[i - 1]) >= 0x40:
                            break
                elif n in "]PX^_":
                    while i < len(text):
                        i += 1
                        if text[i - 1] in "\x07\x9c":
                            break
                        if text[i - 1] == "\x1b" and i < len(text) and text[i] == "\\":
                            i += 1
                            break
                else:
                    while 0x20 <= ord(n) <= 0x2F and i < len(text):
                        n = text[i]
                        i += 1
        elif o < 0x20 or 0x7F <= o < 0xA0:
            continue
        else:
            out.append(c)
    return "".join(out)


def expected_lines(data):
    """A task's output bytes as the lines flowrun shows."""
    pieces = data.split(b"\n")
    if pieces and pieces[-1] == b"":
        pieces.pop()
    lines = []
    for piece in pieces:
        if piece.endswith(b"\r"):
            piece = piece[:-1]
        while len(piece) > 65536:
            cut = 65536
            while cut > 0 and (piece[cut] & 0xC0) == 0x80:
                cut -= 1
            lines.append(piece[:cut])
            piece = piece[cut:]
        lines.append(piece)
    return [sanitized(p.decode("utf-8", "replace")) for p in lines]


class Case:
    def __init__(self, rng, folder, number):
        self.folder = folder
        self.tasks = {}   # id -> dict(stdout bytes, stderr bytes, exit, allowed, shell)
        self.verbose = rng.random() < 0.5   # -v echoes each command, which may quote `##[`
        count = rng.randint(2, 6)
        ids = rng.sample(IDS, count)
        name = rng.choice(["ci%d" % number, "'##[error]name %d'" % number, "'::error::name'", "'a.b <&> \"q\"'"])
        lines = ["version: 1", "name: " + name, "tasks:"]
        for index, task in enumerate(ids):
            out = b"".join(p.replace(b"%d", b"%d" % index) for p in rng.sample(PAYLOADS, rng.randint(1, 6)))
            if rng.random() < 0.2:
                out += b"y" * 100000 + b"\n"
            if rng.random() < 0.3:
                out += b"no final newline"
            err = b"err line\n" if rng.random() < 0.5 else b""
            code = rng.choice([0, 0, 1])
            allowed = code != 0 and rng.random() < 0.4
            with open(os.path.join(folder, f"o{index}"), "wb") as f:
                f.write(out)
            with open(os.path.join(folder, f"e{index}"), "wb") as f:
                f.write(err)
            lines += [f"  '{task}':", f"    shell: cat o{index}; cat e{index} >&2; exit {code}  # ##[error]echoed by -v"]
            if allowed:
                lines.append("    continue_on_error: true")
            self.tasks[task] = dict(out=out, err=err, code=code, allowed=allowed)
        # a matrix task and a task whose program cannot start (a reason from the file)
        lines += ["  m:", "    matrix: {v: ['3.10', '-']}", "    shell: printf 'matrix %s\\n' \"$MATRIX_V\""]
        for v in ["3.10", "-"]:
            self.tasks[f"m[{v}]"] = dict(out=b"matrix %s\n" % v.encode(), err=b"", code=0, allowed=False)
        if rng.random() < 0.5:
            lines += ["  nostart:", "    shell: ['##[error]forged ::error::x']", "    continue_on_error: true"]
            self.tasks["nostart"] = dict(out=b"", err=b"", code=None, allowed=True)
        lines += ["include:", "  ns: inc.yaml"]
        with open(os.path.join(folder, "inc.yaml"), "w") as f:
            f.write("version: 1\ntasks:\n  t:\n    shell: echo '::endgroup::'\n")
        self.tasks["ns:t"] = dict(out=b"::endgroup::\n", err=b"", code=0, allowed=False)
        with open(os.path.join(folder, "flow.yaml"), "w") as f:
            f.write("\n".join(lines) + "\n")

    def run(self, env, *args):
        environment = {k: v for k, v in os.environ.items() if k not in ("CI", "GITHUB_ACTIONS", "NO_COLOR")}
        environment.update(env)
        return subprocess.run([FLOWRUN, "run", "--no-record", "-j", "4", "--keep-going", *args, "flow.yaml"],
                              cwd=self.folder, env=environment, capture_output=True, timeout=120)


def check_github(case, diffs, label):
    result = case.run({"GITHUB_ACTIONS": "true"}, *(["-v"] if case.verbose else []))
    text = result.stdout.decode("utf-8", "replace")
    folds, annotations, problems = read_github(text, set(case.tasks))
    diffs += [f"{label} github: {p}" for p in problems]
    expected = []
    for task, info in case.tasks.items():
        raw = folds.get(task)
        if raw is None:
            diffs.append(f"{label} github: no fold for task {task!r}")
            continue
        shown = [line for line in raw if not OWN_STOP.match(line) and not OWN_RESUME.match(line)]
        want = expected_lines(info["out"])
        at = 0
        for line in shown:
            if at < len(want) and line == want[at]:
                at += 1
        if at < len(want):
            diffs.append(f"{label} github: task {task!r}'s line {want[at][:80]!r} is not in its fold")
        failed = info["code"] != 0
        if failed:
            kind = "warning" if info["allowed"] else "error"
            expected.append((kind, task))
    got = []
    for kind, props, data in annotations:
        match = re.match(r"(.*?) failed( \(allowed by continue_on_error\))?: ", data)
        if kind in ("error", "warning") and match and match.group(1) in case.tasks and not props:
            got.append((kind, match.group(1)))
        else:
            diffs.append(f"{label} github: annotation outside any fold that flowrun did not mean: {kind} {props} {data[:80]!r}")
    if sorted(got) != sorted(expected):
        diffs.append(f"{label} github: failure annotations {sorted(got)} != {sorted(expected)}")


def check_plain(case, diffs, label):
    result = case.run({"CI": "true"}, "--junit", "report.xml")
    text = result.stdout.decode("utf-8", "replace")
    lines = text.split("\n")
    if "\x1b" in text:
        diffs.append(f"{label} plain: an escape character in the log")
    end = next((i for i, line in enumerate(lines) if line.startswith(("failed tasks, with", "allowed failures (continue"))), len(lines))
    body = lines[:end]
    for task, info in case.tasks.items():
        for stream, mark in (("out", "|"), ("err", "!")):
            prefix = f"[{task}] {mark}"
            got = [line[len(prefix) + 1:] if len(line) > len(prefix) else "" for line in body
                   if line == prefix or line.startswith(prefix + " ")]
            want = expected_lines(info[stream])
            if got != want:
                first = next((i for i in range(min(len(got), len(want))) if got[i] != want[i]), min(len(got), len(want)))
                diffs.append(f"{label} plain: task {task!r} {stream}: line {first}: got "
                             f"{(got[first] if first < len(got) else None)!r:.90} want {(want[first] if first < len(want) else None)!r:.90}")
        finals = [line for line in body if re.match(re.escape(f"[{task}] ") + r"(succeeded|failed|allowed failure)", line)]
        if len(finals) != 1:
            diffs.append(f"{label} plain: task {task!r} has {len(finals)} final lines")
    check_junit(case, os.path.join(case.folder, "report.xml"), diffs, label)


def check_junit(case, path, diffs, label):
    try:
        import xmlschema
        errors = list(xmlschema.XMLSchema(XSD).iter_errors(path))
        diffs += [f"{label} junit: schema: {e.reason}" for e in errors[:3]]
        root = ET.parse(path).getroot()
    except Exception as error:  # noqa: BLE001 - any unreadable report is the difference
        diffs.append(f"{label} junit: unreadable: {error}")
        return
    cases = root.iter("testcase")
    seen, names = {}, set()
    failures = errors = 0
    for testcase in cases:
        key = (testcase.get("classname"), testcase.get("name"))
        if key in seen:
            diffs.append(f"{label} junit: two testcases {key}")
        seen[key] = testcase
        names.add(testcase.get("name"))
        failures += len(testcase.findall("failure"))
        errors += len(testcase.findall("error"))
    for task, info in case.tasks.items():
        match = [tc for (cls, name), tc in seen.items() if name == task or f"{cls}.{name}" == task]
        if len(match) != 1:
            diffs.append(f"{label} junit: task {task!r} is {len(match)} testcases")
            continue
        if info["code"] == 0:
            continue
        # A failure keeps its last 50 lines in <failure>, an allowed one in <system-out>.
        out = "".join(element.text or "" for element in match[0] if element.tag in ("failure", "system-out"))
        for line in (expected_lines(info["out"]) + expected_lines(info["err"]))[-40:]:
            if line.strip() and line[:200] not in out:
                diffs.append(f"{label} junit: task {task!r}'s line {line[:60]!r} not in system-out")
                break
    want_failures = sum(1 for i in case.tasks.values() if i["code"] != 0 and not i["allowed"])
    if (failures, errors) != (want_failures, 0):
        diffs.append(f"{label} junit: failures/errors {failures}/{errors}, want {want_failures}/0")
    total = root.get("tests")
    if total is not None and int(total) != len(case.tasks):
        diffs.append(f"{label} junit: tests={total}, want {len(case.tasks)}")


def write(folder, name, text):
    path = os.path.join(folder, name)
    with open(path, "w", newline="") as f:
        f.write(text)
    return path


def check_annotation_paths(diffs, base):
    folder = tempfile.mkdtemp(dir=base)
    name = "x\ry,z:w%0A::e\nf.yaml"
    write(folder, name, "version: 1\ntasks:\n  a:\n    shell: x\n    \"sh\\rell\": 1\n")
    env = dict(os.environ, GITHUB_ACTIONS="true")
    result = subprocess.run([FLOWRUN, "validate", name], cwd=folder, env=env, capture_output=True)
    output = (result.stdout + result.stderr).decode()
    console = [line for line in output.split("\n") if ": error: " in line]
    annotations = [runner_command(line) for line in output.split("\n") if runner_command(line)]
    if not annotations:
        diffs.append("annotation: none")
    for (_, props, data), line in zip(annotations, console):
        if props.get("file") != name:
            diffs.append(f"annotation: file= decodes to {props.get('file')!r}, not {name!r}")
        message = line.split(": error: ", 1)[1]
        if data.split("\n")[0] != message:
            diffs.append(f"annotation: message {data.split(chr(10))[0]!r} is not the console's {message!r}")


def check_interrupts(diffs, base):
    folder = tempfile.mkdtemp(dir=base)
    write(folder, "flow.yaml", "version: 1\ntasks:\n  slow:\n    shell: echo go > started; echo ::stop-commands::zz; sleep 30\n"
          "  late:\n    timeout: 1s\n    shell: echo '  ::group::t'; sleep 30\n")
    env = dict(os.environ, GITHUB_ACTIONS="true")
    process = subprocess.Popen([FLOWRUN, "run", "--no-record", "flow.yaml"], cwd=folder, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    for _ in range(200):
        if os.path.exists(os.path.join(folder, "started")):
            break
        time.sleep(0.05)
    time.sleep(1.5)   # the timeout of `late` first (a go signal is not possible for a timeout)
    process.send_signal(signal.SIGINT)
    out, _ = process.communicate(timeout=60)
    _, _, problems = read_github(out.decode(), {"slow", "late"})
    diffs += [f"interrupt github: {p}" for p in problems]
    if process.returncode != 130:
        diffs.append(f"interrupt: exit {process.returncode}, want 130")


def check_failed_writes(diffs, base):
    folder = tempfile.mkdtemp(dir=base)
    write(folder, "flow.yaml", "version: 1\ntasks:\n" + "".join(
        f"  t{i}:\n    shell: echo $$ >> pids; for n in $(seq 200); do echo line $n; done; sleep 1\n" for i in range(4)))
    cases = [("--junit /dev/full", ["--junit", "/dev/full"], None, 1, "cannot write /dev/full"),
             ("--events-file /dev/full", ["--events-file", "/dev/full"], None, 1, "cannot write /dev/full"),
             ("stdout /dev/full", [], "/dev/full", 1, "cannot write standard output"),
             ("| head -1", [], "head", 141, None)]
    for label, args, stdout, status, message in cases:
        if os.path.exists(os.path.join(folder, "pids")):
            os.remove(os.path.join(folder, "pids"))
        command = [FLOWRUN, "run", "--no-record", "--events", "plain", *args, "flow.yaml"]
        if stdout == "head":
            result = subprocess.run(["sh", "-c", " ".join(f"'{c}'" for c in command) + " | head -1 >/dev/null; echo ${PIPESTATUS:-x}"],
                                    cwd=folder, capture_output=True)
            shell = subprocess.run(["bash", "-c", " ".join(f"'{c}'" for c in command) + " | head -1 >/dev/null; exit ${PIPESTATUS[0]}"],
                                   cwd=folder, capture_output=True)
            code, err = shell.returncode, shell.stderr.decode()
        else:
            with open(stdout or os.devnull, "w") as sink:
                shell = subprocess.run(command, cwd=folder, stdout=sink, stderr=subprocess.PIPE)
            code, err = shell.returncode, shell.stderr.decode()
        if code != status:
            diffs.append(f"writes {label}: exit {code}, want {status} (stderr {err.strip()[:120]!r})")
        if message and message not in err:
            diffs.append(f"writes {label}: stderr {err.strip()[:120]!r} does not say {message!r}")
        if not message and err.strip():
            diffs.append(f"writes {label}: stderr not empty: {err.strip()[:120]!r}")
        time.sleep(0.2)
        for pid in open(os.path.join(folder, "pids")).read().split() if os.path.exists(os.path.join(folder, "pids")) else []:
            try:
                os.kill(int(pid), 0)
                diffs.append(f"writes {label}: task process {pid} still running after flowrun exited")
            except ProcessLookupError:
                pass


def screen_of(args, rows, cols, folder, env):
    import pyte
    screen = pyte.Screen(cols, rows)
    stream = pyte.ByteStream(screen)
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(folder)
        os.environ.update(env)
        for name in ("CI", "GITHUB_ACTIONS"):
            os.environ.pop(name, None)
        os.execv(FLOWRUN, [FLOWRUN, *args])
    import fcntl
    import struct
    import termios
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    raw = b""
    while True:
        ready, _, _ = select.select([fd], [], [], 30)
        if not ready:
            break
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        raw += chunk
        stream.feed(chunk)
    os.waitpid(pid, 0)
    return screen, raw


def check_live(diffs, base):
    folder = tempfile.mkdtemp(dir=base)
    write(folder, "flow.yaml", "version: 1\ntasks:\n  colour:\n    shell: printf '\\033[31mred\\033[0m \\033]0;T\\007 \\033[2Jafter\\n'\n"
          "  " + "w" * 64 + ":\n    shell: echo " + "x" * 300 + "\n  bad:\n    shell: exit 3\n")
    for rows, cols in [(20, 80), (40, 200), (5, 30)]:
        for no_color in (False, True):
            env = {"TERM": "xterm-256color", "COLUMNS": str(cols), "LINES": str(rows)}
            if no_color:
                env["NO_COLOR"] = "1"
            screen, raw = screen_of(["run", "--no-record", "--keep-going", "flow.yaml"], rows, cols, folder, env)
            label = f"live {rows}x{cols}{' NO_COLOR' if no_color else ''}"
            text = raw.decode("utf-8", "replace")
            if "\x1b]0;T" in text or "\x1b[2J" in text:
                diffs.append(f"{label}: a task's non-SGR escape reached the terminal")
            if no_color and re.search(r"\x1b\[[0-9;]*[1-9][0-9;]*m", text):
                diffs.append(f"{label}: colour under NO_COLOR")
            if not no_color and "\x1b[31mred" not in text:
                diffs.append(f"{label}: the task's own red did not pass through")
            shown = [line.rstrip() for line in screen.display]
            last = next((line for line in reversed(shown) if line), "")
            if "failed" not in last:
                diffs.append(f"{label}: final screen's end does not say the run failed: {last!r}")
            # pyte wraps what is wider than the screen: a table row cut in two shows as a header
            # or row without its last column (the fixed columns need 35, so from 40 up).
            if cols >= 40:
                for line in shown:
                    if re.match(r"(task|colour|bad) +(result|succeeded|failed)", line) and not re.search(r"(attempts|\d)$", line):
                        diffs.append(f"{label}: a summary table row wrapped: {line!r}")


def main():
    global FLOWRUN
    parser = argparse.ArgumentParser()
    parser.add_argument("--flowrun", required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=10)
    parser.add_argument("--only", default="github,plain,annotation,interrupt,writes,live")
    options = parser.parse_args()
    FLOWRUN = os.path.abspath(options.flowrun)
    only = set(options.only.split(","))
    rng = random.Random(options.seed)
    base = tempfile.mkdtemp(prefix="cipeer-")
    diffs = []
    try:
        for number in range(options.cases):
            folder = tempfile.mkdtemp(dir=base)
            case = Case(rng, folder, number)
            if "github" in only:
                check_github(case, diffs, f"case {number}")
            if "plain" in only:
                check_plain(case, diffs, f"case {number}")
        if "annotation" in only:
            check_annotation_paths(diffs, base)
        if "interrupt" in only:
            check_interrupts(diffs, base)
        if "writes" in only:
            check_failed_writes(diffs, base)
        if "live" in only:
            check_live(diffs, base)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    for diff in diffs:
        print(diff)
    print(f"{options.cases} generated cases: {len(diffs)} differences")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
