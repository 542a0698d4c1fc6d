import ArgumentParser
import FlowModel
import Foundation

/// The exit statuses of the command line contract, in one table. Only this target exits.
enum ExitStatus {
    /// A task failed.
    static let taskFailed = ExitCode(1)
    /// The workflow file is invalid, or the command line is.
    static let invalid = ExitCode(2)
    /// SIGINT cancelled the run (128 + 2).
    static let interrupted = ExitCode(130)
    /// SIGTERM cancelled the run (128 + 15).
    static let terminated = ExitCode(143)
    /// Standard output's reader went away (128 + SIGPIPE's 13), as a shell reports `yes | head -1`.
    static let outputClosed = ExitCode(141)

    /// For an output of a run that could not be written: 141 if its reader went away, else 1
    /// (as a failure).
    static func forWriteFailure(_ failure: WriteFailure) -> ExitCode {
        failure.code == EPIPE ? outputClosed : taskFailed
    }

    /// For an output of any command but a run (`validate`, `graph`, `list`, `schema`, `runs`,
    /// `logs`, `--dry-run`, `export`, `report`, `completion`) that could not be written: 141 if its
    /// reader went away, else 2, the one failure status the contract gives those commands ("0 or 2").
    static func forCommandWriteFailure(_ failure: WriteFailure) -> ExitCode {
        failure.code == EPIPE ? outputClosed : invalid
    }

    /// A signal cancelled the run, or ended flowrun before it: 128 + its number (129 SIGHUP,
    /// 130 SIGINT, 131 SIGQUIT, 143 SIGTERM), as a shell reports a process the signal killed.
    static func signalled(_ number: Int32) -> ExitCode {
        ExitCode(128 + number)
    }
}
