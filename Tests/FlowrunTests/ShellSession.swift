import Foundation

/// Runs a script in a real shell (bash, fish, zsh) with the built flowrun first on PATH, as a
/// user's interactive shell would find it, and returns what the script printed.
enum ShellSession {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The shell's path, when it is installed.
    static func path(of shell: String) -> String? {
        ["/usr/bin/\(shell)", "/bin/\(shell)", "/usr/local/bin/\(shell)"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func run(_ shell: String, _ script: String, in folder: URL) async throws -> Result {
        _ = ChildSignals.restored
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path(of: shell) ?? "/bin/\(shell)")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = folder
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = FlowrunBinary.url.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Both pipes are read at once, so that neither fills while the other is read.
        async let stderr = offThePool { errors.fileHandleForReading.readDataToEndOfFile() }
        let stdout = try await offThePool { output.fileHandleForReading.readDataToEndOfFile() }
        let errorText = try await stderr
        try await offThePool { process.waitUntilExit() }
        return Result(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: errorText, as: UTF8.self))
    }
}
