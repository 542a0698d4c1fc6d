import FlowModel

/// Renders diagnostics as `FILE:LINE:COLUMN: error: MESSAGE`, with a `note:` line for a hint.
public struct DiagnosticPrinter: Sendable {
    public var style: Style
    public init(style: Style = Style(enabled: false)) { self.style = style }

    /// Every diagnostic, sorted by position, one line each (plus its hint).
    public func render(_ diagnostics: [Diagnostic]) -> String {
        var output = ""
        for diagnostic in diagnostics.sortedByPosition() {
            let place = position(diagnostic.location)
            output += "\(style.bold(place)): \(style.red("error:")) \(diagnostic.message.text)\n"
            if let hint = diagnostic.message.hint {
                output += "\(style.bold(place)): \(style.cyan("note:")) \(hint)\n"
            }
        }
        return output
    }

    /// Line 0 stands for the whole file (it cannot be read, or is too large).
    private func position(_ location: SourceLocation) -> String {
        location.line > 0 ? location.description : location.file
    }
}
