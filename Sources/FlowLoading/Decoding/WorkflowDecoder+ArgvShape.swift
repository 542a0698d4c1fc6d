import FlowModel

extension WorkflowDecoder {
    /// Warns when an argv list looks like shell text: a first item with a space or a `${` is
    /// run as a program of that very name, without a shell (`shell: ["make build", "make test"]`
    /// looks for a program called "make build"). A warning, not an error: such a program may
    /// exist, and the run still goes.
    mutating func warnIfShellText(_ argv: [Located<String>], _ field: @autoclosure () -> String) {
        guard let first = argv.first, first.value.contains(" ") || first.value.contains("${") else { return }
        report(Diagnostic(.argvLooksLikeShellText(argv.map(\.value), field: field()), at: first.location, severity: .warning))
    }
}

extension Diagnostic.Message {
    /// The hint is the string form, which runs in a shell: items that are each a command are
    /// joined with `&&` (as `set -e` lines would run), others with spaces.
    static func argvLooksLikeShellText(_ argv: [String], field: String) -> Self {
        let eachACommand = argv.count > 1 && argv.allSatisfy { $0.contains(" ") }
        let script = eachACommand ? argv.joined(separator: " && ") : argv.joined(separator: " ")
        return Self(
            "the first item of \(field), '\(argv[0])', is run as a program of that name, without a shell",
            hint: "did you mean the string form 'shell: \(script)'?")
    }
}
