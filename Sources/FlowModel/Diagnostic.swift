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

    package var location: SourceLocation
    package var message: Message

    package init(_ message: Message, at location: SourceLocation) {
        self.location = location
        self.message = message
    }
}

extension Array where Element == Diagnostic {
    /// Diagnostics in file order; equal positions keep the order they were found in.
    package func sortedByPosition() -> [Diagnostic] {
        enumerated()
            .sorted { ($0.element.location, $0.offset) < ($1.element.location, $1.offset) }
            .map(\.element)
    }
}
