/// Python 3 that runs a program on a new pseudo-terminal (the pty module), as a person at a
/// terminal runs it: the start of a test's script, whose own lines call `spawn` and then
/// `until`, `eventually`, `drain`, `os.write(fd, ...)` and `finish`. What the terminal showed
/// so far is in `out`.
package enum PseudoTerminalScript {
    package static let prelude = """
        import json, os, pty, select, sys, termios, time
        out = b''
        def spawn(folder, path, argv, environment):
            # path, with argv (its name first) and only environment, in folder, on a new terminal.
            global pid, fd
            pid, fd = pty.fork()
            if pid == 0:
                os.chdir(folder)
                os.execve(path, argv, environment)
        def read(wait):
            # Adds to out what comes within wait seconds (None: until something does); False
            # once the terminal is closed (EIO when the program's side has gone).
            global out
            if not select.select([fd], [], [], wait)[0]:
                return True
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b''
            out += data
            return bool(data)
        def drain():
            # Reads what the terminal has shown already.
            while select.select([fd], [], [], 0)[0] and read(0):
                pass
        def eventually(condition, what):
            # Reads until condition() holds: at most 120 s, a hang guard.
            deadline = time.monotonic() + 120
            while not condition():
                if time.monotonic() > deadline:
                    sys.exit('timed out waiting for %s in %r' % (what, out))
                read(0.01)
        def until(text):
            eventually(lambda: text in out, repr(text))
        def finish():
            # Reads to the end, waits for the program, and returns its exit status.
            while read(None):
                pass
            _, status = os.waitpid(pid, 0)
            return os.waitstatus_to_exitcode(status)

        """
}
