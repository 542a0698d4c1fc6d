import FlowFiles

/// Why a task must run, as `--dry-run` says it: what differs from its last success, and for a
/// changed or missing input or output, where, when that can be told (`ReasonPath`).
package struct RunReason: Sendable, Equatable, CustomStringConvertible {
    package enum Kind: String, Sendable {
        case neverRan = "never ran"
        case changedCommand = "changed command"
        case changedEnv = "changed env"
        case changedInput = "changed input"
        case changedNeed = "changed need"
        case missingInput = "missing input"
        case missingOutput = "missing output"
        case changedOutput = "changed output"
        case untracked = "no inputs or outputs"
        case forced = "--force"
    }

    package var kind: Kind
    /// The file (or pattern) that changed or is missing, as planned: absolute, and unmasked. A
    /// console masks it as the task's pattern is masked (`PlannedTask.shown`).
    package var path: ReasonPath?

    package init(_ kind: Kind, path: ReasonPath? = nil) {
        self.kind = kind
        self.path = path
    }

    /// The reason without its path: `changed input`.
    package var description: String { kind.rawValue }
}

/// Where an input or output changed: one file, or, when no one file can be named (a file
/// removed under a glob), the declared pattern under which files came or went.
package struct ReasonPath: Sendable, Equatable {
    /// The file, or the pattern itself when `isWholePattern`.
    package var path: String
    /// The `inputs`/`outputs` entry (as planned) that names it.
    package var pattern: String
    package var isWholePattern: Bool

    package init(path: String, pattern: String, isWholePattern: Bool = false) {
        self.path = path
        self.pattern = pattern
        self.isWholePattern = isWholePattern
    }
}

extension FileDigests {
    /// The first file `patterns` name, in their order, whose contents differ from what the log
    /// last recorded of it, or that it never recorded (a file new under a glob); else, when some
    /// entry is a glob or a folder, that entry (a file went away under it); nil if neither.
    ///
    /// The log keeps the last digest of each file, not each task's: a file another task has
    /// since seen changed is not found here, and the reason is then told by its pattern, or not
    /// at all.
    mutating func firstChange(inPatterns patterns: [String], leavingOut own: OwnOutputs = .none, areOutputs: Bool = false) -> ReasonPath? {
        var wholePattern: ReasonPath?
        for pattern in patterns {
            if !PathGlob.isPattern(pattern), let status = fileSystem.regularFileStatus(of: pattern) {
                if knownRecord(of: pattern)?.digest != digest(of: pattern, status: status) { return ReasonPath(path: pattern, pattern: pattern) }
                continue
            }
            if wholePattern == nil { wholePattern = ReasonPath(path: pattern, pattern: pattern, isWholePattern: true) }
            let outputs = own.matcher(fileSystem: fileSystem)
            // As `statuses(ofPatterns:)`: an output reached by another name is no input.
            let outputStatuses = own.isEmpty ? [] : own.statuses(fileSystem: fileSystem)
            for file in areOutputs ? fileSystem.outputFiles(matching: pattern) : fileSystem.files(matching: pattern) where !outputs.contains(file) {
                let status = fileSystem.status(of: file)
                if let status, outputStatuses.contains(status) { continue }
                if knownRecord(of: file)?.digest != status.flatMap({ digest(of: file, status: $0) }) {
                    return ReasonPath(path: file, pattern: pattern)
                }
            }
        }
        return wholePattern
    }
}
