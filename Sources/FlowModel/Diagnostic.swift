/// One problem found in a workflow file: data, rendered by a printer in the console layer.
public struct Diagnostic: Hashable, Sendable {
    /// What went wrong, and an optional hint (a did-you-mean, or how to fix it).
    public struct Message: Hashable, Sendable {
        public var text: String
        public var hint: String?

        public init(_ text: String, hint: String? = nil) {
            self.text = text
            self.hint = hint
        }
    }

    public var location: SourceLocation
    public var message: Message

    public init(_ message: Message, at location: SourceLocation) {
        self.location = location
        self.message = message
    }
}

extension Array where Element == Diagnostic {
    /// Diagnostics in file order; equal positions keep the order they were found in.
    public func sortedByPosition() -> [Diagnostic] {
        enumerated()
            .sorted { ($0.element.location, $0.offset) < ($1.element.location, $1.offset) }
            .map(\.element)
    }
}
