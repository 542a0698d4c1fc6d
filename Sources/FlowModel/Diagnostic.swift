/// One problem found in a workflow file: data, rendered by a printer in the console layer.
package struct Diagnostic: Hashable, Sendable {
    /// What went wrong, and an optional hint (a did-you-mean, or how to fix it).
    package struct Message: Hashable, Sendable {
        package var text: String
        package var hint: String?

        package init(_ text: String, hint: String? = nil) {
            self.text = text
            self.hint = hint
        }
    }

    /// An error makes the file invalid; a warning is shown, and the file still runs.
    package enum Severity: Hashable, Sendable {
        case error
        case warning
    }

    package var location: SourceLocation
    package var message: Message
    package var severity: Severity

    package init(_ message: Message, at location: SourceLocation, severity: Severity = .error) {
        self.location = location
        self.message = message
        self.severity = severity
    }
}

extension Array where Element == Diagnostic {
    /// True when one of them is an error: warnings alone leave a file valid.
    package var hasErrors: Bool { contains { $0.severity == .error } }

    /// Diagnostics in file order; equal positions keep the order they were found in.
    package func sortedByPosition() -> [Diagnostic] {
        enumerated()
            .sorted { ($0.element.location, $0.offset) < ($1.element.location, $1.offset) }
            .map(\.element)
    }
}
