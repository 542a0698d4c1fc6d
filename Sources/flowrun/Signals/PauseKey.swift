import CLinux
import Foundation
import Glibc

/// `p` on the terminal pauses the run and `p` again resumes it, while the live view shows it.
///
/// Read only when standard input is a terminal and flowrun is its foreground process (not
/// `flowrun ... &`, which would stop on a read): the terminal is then put out of line mode and
/// echo, as `less` and `top` do, so that a key counts at once and prints nothing over the live
/// area. Ctrl-C and the other signal keys still work (ISIG is kept). Tasks never read this
/// terminal: their standard input is /dev/null. The terminal's modes are put back by `stop()`,
/// and by `restoreTerminal()` on an exit at once (a second Ctrl-C). While flowrun is stopped
/// (Ctrl-Z) they are put back too, and set again when it continues in the foreground
/// (`releaseTerminal()`, `retakeTerminal()`), as `less` and `vim` do.
///
/// - Warning: `saved` and `released` are guarded by `lock`; the reading thread touches nothing
///   else shared.
final class PauseKey: @unchecked Sendable {
    private static let lock = NSLock()
    /// The terminal's modes before, while they are changed.
    nonisolated(unsafe) private static var saved: (descriptor: Int32, modes: termios)?
    /// The keys' modes, while flowrun is stopped (Ctrl-Z) or continued in the background.
    nonisolated(unsafe) private static var released: termios?

    private let descriptor: Int32
    /// Written to by `stop()` to end the reading thread's poll.
    private let wake: (read: Int32, write: Int32)

    /// Starts reading `descriptor` for `p`; nil (and nothing changed) when it is no terminal
    /// flowrun may read.
    static func start(descriptor: Int32 = STDIN_FILENO, toggle: @escaping @Sendable () -> Void) -> PauseKey? {
        guard isatty(descriptor) == 1, tcgetpgrp(descriptor) == getpgrp() else { return nil }
        var modes = termios()
        guard tcgetattr(descriptor, &modes) == 0 else { return nil }
        var pipeEnds: [Int32] = [-1, -1]
        guard flowrun_pipe_cloexec(&pipeEnds) == 0 else { return nil }
        var keys = modes
        keys.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &keys.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        lock.withLock { saved = (descriptor, modes) }
        guard tcsetattr(descriptor, TCSANOW, &keys) == 0 else {
            lock.withLock { saved = nil }
            close(pipeEnds[0])
            close(pipeEnds[1])
            return nil
        }
        let key = PauseKey(descriptor: descriptor, wake: (pipeEnds[0], pipeEnds[1]))
        let thread = Thread { key.read(toggle: toggle) }
        thread.start()
        return key
    }

    private init(descriptor: Int32, wake: (read: Int32, write: Int32)) {
        self.descriptor = descriptor
        self.wake = wake
    }

    /// Reads keys until `stop()`, the end of input or an error; `p` or `P` toggles.
    ///
    /// After Ctrl-Z and `bg` flowrun is no longer the terminal's foreground: a read would stop
    /// the whole process (SIGTTIN). So SIGTTIN and SIGTTOU are blocked in this thread (a read
    /// then fails with EIO instead), and in the background the terminal is not read, only
    /// looked at again four times a second, until `fg` gives it back.
    private func read(toggle: @Sendable () -> Void) {
        var jobControl = sigset_t()
        sigemptyset(&jobControl)
        sigaddset(&jobControl, SIGTTIN)
        sigaddset(&jobControl, SIGTTOU)
        pthread_sigmask(SIG_BLOCK, &jobControl, nil)
        var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
        while true {
            let foreground = tcgetpgrp(descriptor) == getpgrp()
            fds[0].fd = foreground ? descriptor : -1  // poll(2) skips a negative descriptor
            let ready = poll(&fds, 2, foreground ? -1 : 250)
            if ready < 0 && errno == EINTR { continue }
            guard ready >= 0, fds[1].revents == 0 else { return }
            guard ready > 0 else { continue }  // a look from the background
            guard fds[0].revents & Int16(POLLIN) != 0 else { return }  // hung up
            var byte: UInt8 = 0
            let count = Glibc.read(descriptor, &byte, 1)
            if count < 0 && (errno == EINTR || errno == EAGAIN || errno == EIO) { continue }  // EIO: sent to the background
            guard count == 1 else { return }
            if byte == UInt8(ascii: "p") || byte == UInt8(ascii: "P") { toggle() }
        }
    }

    /// Stops reading and puts the terminal's modes back.
    func stop() {
        var byte: UInt8 = 0
        _ = Glibc.write(wake.write, &byte, 1)
        Self.restoreTerminal()
    }

    /// Puts the terminal's modes back if they were changed; safe to call more than once, and
    /// from the thread that exits at once.
    static func restoreTerminal() {
        lock.withLock {
            guard var state = saved else { return }
            setModes(&state.modes, of: state.descriptor)
            saved = nil
            released = nil
        }
    }

    /// Ctrl-Z: puts the terminal's modes back before flowrun stops. The shell the user comes
    /// back to, and what they run meanwhile, would find it without line mode and echo (a shell
    /// reads its line in the modes it finds, and gives them to the next command).
    static func releaseTerminal() {
        lock.withLock {
            guard var state = saved, released == nil else { return }
            var keys = termios()
            guard tcgetattr(state.descriptor, &keys) == 0 else { return }
            setModes(&state.modes, of: state.descriptor)
            released = keys
        }
    }

    /// SIGCONT: sets the keys' modes again, once flowrun is the terminal's foreground (`fg`);
    /// continued in the background (`bg`) it is not, and the next SIGCONT (`fg`) sets them.
    static func retakeTerminal() {
        lock.withLock {
            guard let state = saved, var keys = released, tcgetpgrp(state.descriptor) == getpgrp() else { return }
            setModes(&keys, of: state.descriptor)
            released = nil
        }
    }

    /// `tcsetattr` now; from the background (Ctrl-Z, `bg`) it would stop flowrun with SIGTTOU
    /// unless the signal is blocked.
    private static func setModes(_ modes: inout termios, of descriptor: Int32) {
        var stop = sigset_t()
        var mask = sigset_t()
        sigemptyset(&stop)
        sigaddset(&stop, SIGTTOU)
        pthread_sigmask(SIG_BLOCK, &stop, &mask)
        _ = tcsetattr(descriptor, TCSANOW, &modes)
        pthread_sigmask(SIG_SETMASK, &mask, nil)
    }
}
