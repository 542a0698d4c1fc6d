import ArgumentParser
import CLinux
import FlowConsole
import FlowModel
import Foundation

/// The root command: `flowrun FILE [TASK...]` runs a workflow; subcommands stop before running.
struct Flowrun: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flowrun",
        abstract: "Run a declarative workflow of tasks: shell commands, downloads, archives, images.",
        discussion: """
            A workflow is a YAML file of tasks and the tasks they need. flowrun checks the whole \
            file first, then runs each task as soon as its needs allow, within the concurrency \
            limits, by priority.

            Exit status: 0 every task succeeded (or the file is valid); 1 a task failed, or a run's \
            output could not be written; 2 invalid file or usage, or another command's output \
            could not be written; 129 hung up (SIGHUP); 130 \
            interrupted (SIGINT); 131 quit (SIGQUIT); 141 standard output was closed; 143 \
            terminated (SIGTERM).
            """,
        version: "0.1.0",
        subcommands: [
            RunCommand.self, ValidateCommand.self, GraphCommand.self, ListCommand.self, SchemaCommand.self, RunsCommand.self, LogsCommand.self,
            ReportCommand.self,
            ExportCommand.self, CompletionCommand.self,
        ],
        defaultSubcommand: RunCommand.self
    )

    /// Parses and runs, with usage errors mapped to the contract's exit status 2 (not sysexits' 64).
    /// `startingSignalMask`: the mask flowrun started with, given back to every command but
    /// `run` (`StartupSignals`).
    static func runMain(startingSignalMask: sigset_t) -> Never {
        do {
            if let script = FishCompletionScript.requested(by: CommandLine.arguments) {
                StartupSignals.release(startingSignalMask)
                print(script)
                try flushStandardOutput(statusTwo: true)
                Foundation.exit(0)
            }
            if let script = BashCompletionScript.requested(by: CommandLine.arguments) {
                StartupSignals.release(startingSignalMask)
                print(script)
                try flushStandardOutput(statusTwo: true)
                Foundation.exit(0)
            }
            let arguments = TaskArgumentWords.split(DirectoryFirst.reordered(Array(CommandLine.arguments.dropFirst())))
            try TaskArgumentWords.refuseNotUTF8()
            try MisspelledCommand.check(arguments)
            // The common `flowrun [run] [-j N] FILE` without ArgumentParser's start-up cost.
            var command: any ParsableCommand
            if let common = CommonRunLine.parse(arguments) { command = common } else { command = try parseAsRoot(arguments) }
            if !((command as? RunCommand)?.takesSignals ?? false) { StartupSignals.release(startingSignalMask) }
            try command.run()
            try flushStandardOutput(statusTwo: !((command as? RunCommand)?.takesSignals ?? false))
            Foundation.exit(0)
        } catch let failure as CommandFailure {
            exit(reporting: failure)
        } catch {
            let code = exitCode(for: error)
            if code == .success { printCleanExit(fullMessage(for: error)) }
            if code == .validationFailure {
                let arguments = DirectoryFirst.reordered(Array(CommandLine.arguments.dropFirst()))
                var message = UsageErrorText.flowrunStyle(ParserSuggestion.mended(fullMessage(for: error), arguments: arguments))
                // `flowrun FILE test -k smoke`: options of the task's own program, meant for it.
                if message.contains("unknown option"), !CommandLine.arguments.contains("--") {
                    message += "\nflowrun: note: to hand arguments to the tasks you name, put them after '--': flowrun FILE TASK -- ARGS"
                }
                StandardError.write(message + "\n")
                Foundation.exit(ExitStatus.invalid.rawValue)
            }
            exit(withError: error)
        }
    }

    /// `--help`, `--version`, `help COMMAND`: printed here rather than by ArgumentParser, whose
    /// exit does not look at the write, so that `flowrun --help >/dev/full` fails with 2 as
    /// `ls --help >/dev/full` does, instead of a silent 0.
    private static func printCleanExit(_ text: String) -> Never {
        if !text.isEmpty { print(text) }
        do throws(CommandFailure) {
            try flushStandardOutput(statusTwo: true)
        } catch {
            exit(reporting: error)
        }
        Foundation.exit(0)
    }

    /// Says `failure` on standard error and exits with its status. `flowrun ... | head`: the
    /// reader went away on purpose, so quietly, as a program SIGPIPE ends says nothing; the
    /// status (141) still tells.
    private static func exit(reporting failure: CommandFailure) -> Never {
        if failure.status.rawValue != ExitStatus.outputClosed.rawValue {
            StandardError.write("flowrun: error: \(VisibleText.escaped(failure.message))\n")
        }
        Foundation.exit(failure.status.rawValue)
    }

    /// `print` keeps text in stdio's buffer, and exit would flush it without a word if the write
    /// failed: flushed and checked here, as GNU's `close_stdout` does, so that `flowrun schema
    /// >/dev/full` is an error, not a silent 0. A print larger than the buffer is written at
    /// once, and if that write failed nothing is left to fail the flush: stdout's error flag
    /// tells, with the errno of that write (nothing since has failed to set another).
    /// `statusTwo`: every command but a run fails with 2, the one failure status the contract
    /// lists for them (`ExitStatus.forCommandWriteFailure`); a run's lost output fails it with 1.
    private static func flushStandardOutput(statusTwo: Bool = false) throws(CommandFailure) {
        let earlier = errno
        let flushed = fflush(nil) == 0
        guard !flushed || flowrun_stdout_failed() != 0 else { return }
        let code = flushed ? earlier : errno
        let failure = WriteFailure(output: "standard output", code: code == 0 ? EIO : code)
        throw CommandFailure("\(failure)", status: statusTwo ? ExitStatus.forCommandWriteFailure(failure) : ExitStatus.forWriteFailure(failure))
    }
}
