import FlowModel

/// Renders diagnostics as `FILE:LINE:COLUMN: error: MESSAGE` (or `warning:`), with a `note:` line
/// for a hint.
///
/// Messages quote the file, whose values may hold any character: each line is passed through
/// `VisibleText`, so that none of them can write a terminal escape or start a line of its own.
package struct DiagnosticPrinter: Sendable {
    package var style: Style
    package init(style: Style = Style(enabled: false)) { self.style = style }

    /// Every diagnostic, sorted by position, one line each (plus its hint).
    package func render(_ diagnostics: [Diagnostic]) -> String {
        var output = ""
        for diagnostic in diagnostics.sortedByPosition() {
            let place = VisibleText.escaped(position(diagnostic.location))
            let severity = diagnostic.severity == .error ? style.red("error:") : style.yellow("warning:")
            output += "\(style.bold(place)): \(severity) \(VisibleText.escaped(diagnostic.message.text))\n"
            if let hint = diagnostic.message.hint {
                output += "\(style.bold(place)): \(style.cyan("note:")) \(VisibleText.escaped(hint))\n"
            }
        }
        return output
    }

    /// Line 0 stands for the whole file (it cannot be read, or is too large).
    private func position(_ location: SourceLocation) -> String {
        location.line > 0 ? location.description : location.file
    }
}
