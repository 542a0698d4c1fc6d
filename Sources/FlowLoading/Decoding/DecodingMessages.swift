import FlowModel

/// Every message the decoder emits, declared in one place so the corpus and the docs can name them.
extension Diagnostic.Message {
    static func unknownKey(_ key: String, in context: String, suggestion: String?) -> Self {
        Self("unknown key '\(key)' in \(context)", hint: suggestion.map { "did you mean '\($0)'?" })
    }
    /// Another tool's key (`ForeignKeys`), with flowrun's own in the note.
    static func unknownKey(_ key: String, in context: String, note: String) -> Self {
        Self("unknown key '\(key)' in \(context)", hint: note)
    }
    static func missingKey(_ key: String, in context: String) -> Self {
        Self("missing required key '\(key)' in \(context)")
    }
    static func repeatedNeed(_ need: TaskID, task: TaskID, first: SourceLocation) -> Self {
        Self("task '\(task)' needs '\(need)' twice (first at line \(first.line), column \(first.column))")
    }
    static func wrongType(_ field: String, expected: String, found: String) -> Self {
        Self("expected \(expected) for \(field), found \(found)")
    }
    static func tooSmall(_ field: String, minimum: Int, found: Int) -> Self {
        Self("\(field) must be at least \(minimum), found \(found)")
    }
    static func notOneOf(_ field: String, value: String, choices: [String]) -> Self {
        Self(
            "invalid value '\(value)' for \(field): expected one of \(choices.joined(separator: ", "))",
            hint: (shortNames[value].flatMap { choices.contains($0) ? $0 : nil } ?? Spelling.suggestion(for: value, among: choices))
                .map { "did you mean '\($0)'?" })
    }
    /// File-name abbreviations of archive formats, which edit distance would miss ('tgz' is
    /// closer to 'gz' than to 'tar.gz').
    private static let shortNames = ["tgz": "tar.gz", "tbz": "tar.bz2", "tbz2": "tar.bz2", "txz": "tar.xz", "tzst": "tar.zst"]
    static func unsupportedVersion(_ found: String) -> Self {
        Self("unsupported version \(found): this flowrun reads version 1")
    }
    static let emptyFile = Self("the file is empty: a workflow needs at least 'version: 1' and 'tasks'")
    static let noTasks = Self("'tasks' has no tasks: a workflow needs at least one")
    static func nonStringKey(found: String) -> Self {
        Self("expected a string as key, found \(found)")
    }
    static func invalidTaskID(_ id: String) -> Self {
        Self("invalid task id '\(id)': use 1 to 64 of the characters A-Z a-z 0-9 _ . -")
    }
    static func invalidNamespace(_ name: String) -> Self {
        Self("invalid namespace '\(name)' in 'include': use 1 to 64 of the characters A-Z a-z 0-9 _ . -")
    }
    static func invalidQueueName(_ name: String) -> Self {
        Self("invalid queue name '\(name)': use 1 to 64 of the characters A-Z a-z 0-9 _ . -")
    }
    static func invalidEnvName(_ name: String) -> Self {
        Self("invalid environment variable name '\(name)': use letters, digits and _, not starting with a digit")
    }
    static func noAction(task: String) -> Self {
        Self("task '\(task)' has no action: give exactly one of shell, download, decompress, combine, or 'needs' to group other tasks")
    }
    static func secondAction(_ action: String, task: String, first: String) -> Self {
        Self("task '\(task)' has a second action '\(action)' beside '\(first)': give exactly one")
    }
    static func notInDefaults(_ key: String) -> Self {
        Self("'\(key)' cannot be set in 'defaults'; set it on each task")
    }
    static func undeclaredQueue(_ name: String, suggestion: String?) -> Self {
        Self("queue '\(name)' is not declared under 'queues'", hint: suggestion.map { "did you mean '\($0)'?" })
    }
    static func invalidDuration(_ field: String, value: String) -> Self {
        Self("invalid duration '\(value)' for \(field): use whole seconds or a string such as 500ms, 30s, 5m, 1h30m")
    }
    static func zeroTimeout(_ field: String) -> Self {
        Self("\(field) must be longer than 0")
    }
    static func invalidSHA256(_ value: String) -> Self {
        Self("invalid sha256 '\(value)': expected 64 hexadecimal digits")
    }
    static func empty(_ field: String) -> Self {
        Self("\(field) is empty")
    }
    static func invalidCellSize(_ value: String) -> Self {
        Self("invalid size '\(value)': expected WIDTHxHEIGHT in pixels, such as 640x480")
    }
    static func invalidColour(_ value: String) -> Self {
        Self("invalid background '\(value)': expected a colour #RRGGBB")
    }
    static func imageOptionWithoutImage(_ key: String) -> Self {
        Self("'\(key)' applies only to 'format: image'")
    }
    static func archiveOptionWithoutArchive(_ key: String) -> Self {
        Self("'\(key)' applies only to archives: 'format: tar', 'tar.gz' or 'zip'")
    }
    static func invalidPrefix(_ value: String, _ field: String, problem: String) -> Self {
        Self("invalid prefix '\(value)' in \(field): \(problem)", hint: "write a relative folder, such as 'app-1.0/'")
    }
    static func columnsWithoutGrid(_ field: String, layout: String) -> Self {
        Self(
            "'columns' of \(field) applies only to 'layout: grid'; this one lays images out in a \(layout)",
            hint: "remove 'columns', or write 'layout: grid'")
    }
    static func cannotRead(_ reason: String) -> Self {
        Self("cannot read the file: \(reason)")
    }
    /// `bytes` is nil when the file is not a regular one, and more than `limit` was read from it.
    static func fileTooLarge(bytes: Int?, limit: Int) -> Self {
        guard let bytes else {
            return Self("the file is larger than the \(limit >> 20) MiB limit of workflow files (it is not a regular file: reading stopped there)")
        }
        return Self("the file is \(bytes) bytes; workflow files are limited to \(limit >> 20) MiB")
    }
}
