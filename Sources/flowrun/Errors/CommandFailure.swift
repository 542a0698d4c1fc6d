import ArgumentParser

/// A problem the command reports in one line, `flowrun: error: MESSAGE`, without a usage text.
struct CommandFailure: Error {
    var message: String
    var status = ExitStatus.invalid

    init(_ message: String, status: ExitCode = ExitStatus.invalid) {
        self.message = message
        self.status = status
    }
}
