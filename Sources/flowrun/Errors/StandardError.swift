import FlowEvents
import Glibc

/// flowrun's own messages on standard error (warnings, errors, notes).
///
/// Written with `write(2)`, and a failure dropped: there is nowhere left to report it. Foundation's
/// `FileHandle.write` stops the process (SIGILL) when the write fails, and it does on a terminal
/// that was closed (`EIO`): closing the terminal during a run made flowrun crash instead of
/// ending as hung up (129) once it had cancelled its tasks.
enum StandardError {
    static func write(_ message: String) {
        DescriptorWriter(descriptor: STDERR_FILENO).write(message)
    }
}
