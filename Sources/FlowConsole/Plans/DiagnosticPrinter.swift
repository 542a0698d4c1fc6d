import FlowModel

/// Renders diagnostics as `FILE:LINE:COLUMN: error: MESSAGE` (or `warning:`), with a `note:` line
/// for a hint.
///
/// Messages quote the file, whose values may hold any character: each line is passed through
/// `VisibleText`, so that none of them can write a terminal escape or start a line of its own.
///
/// Under GitHub Actions each one is also a workflow command (`::error file=F,line=L,col=C::...`),
/// so that it shows as an annotation on the file's line, as a linter's errors do; a console
/// line that quotes one (`unknown key '##[error]x'`) is written as text (`GitHubCommandLine`).
package struct DiagnosticPrinter: Sendable {
    package var style: Style
    package var githubAnnotations: Bool
    /// The `::stop-commands::` token around a console line the runner would read as a command.
    package var stopToken = GitHubCommandLine.freshToken()
    package init(style: Style = Style(enabled: false), githubAnnotations: Bool = false) {
        self.style = style
        self.githubAnnotations = githubAnnotations
    }

    /// Every diagnostic, sorted by position, one line each (plus its hint).
    package func render(_ diagnostics: [Diagnostic]) -> String {
        var output = ""
        for diagnostic in diagnostics.sortedByPosition() {
            let place = VisibleText.escaped(position(diagnostic.location))
            let severity = diagnostic.severity == .error ? style.red("error:") : style.yellow("warning:")
            var lines = "\(style.bold(place)): \(severity) \(VisibleText.escaped(diagnostic.message.text))\n"
            if let hint = diagnostic.message.hint {
                lines += "\(style.bold(place)): \(style.cyan("note:")) \(VisibleText.escaped(hint))\n"
            }
            guard githubAnnotations else {
                output += lines
                continue
            }
            // The runner reads every line of the step's output, stderr too, for its commands.
            output += GitHubCommandLine.asText(lines, token: stopToken) + annotation(diagnostic)
        }
        return output
    }

    /// `::error file=F,line=L,col=C::MESSAGE` (or `::warning`), the hint on a line of its own.
    private func annotation(_ diagnostic: Diagnostic) -> String {
        let location = diagnostic.location
        var properties = "file=\(PlainLog.escapeProperty(location.file))"
        if location.line > 0 { properties += ",line=\(location.line),col=\(location.column)" }
        // The text the console line shows: a value's `\r` quoted as `\r`, not a line restarted.
        let message = [diagnostic.message.text, diagnostic.message.hint].compactMap { $0.map(VisibleText.escaped) }.joined(separator: "\n")
        return "::\(diagnostic.severity == .error ? "error" : "warning") \(properties)::\(PlainLog.escapeData(message))\n"
    }

    /// Line 0 stands for the whole file (it cannot be read, or is too large).
    private func position(_ location: SourceLocation) -> String {
        location.line > 0 ? location.description : location.file
    }
}
