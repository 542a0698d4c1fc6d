/// Why an extraction stopped, in words that name the entry or the path.
package struct ExtractionFailure: Error, Equatable, CustomStringConvertible {
    package var message: String
    /// True when the extraction stopped because it was asked to (cancel, terminate).
    package var cancelled = false

    package init(_ message: String, cancelled: Bool = false) {
        self.message = message
        self.cancelled = cancelled
    }

    package var description: String { message }

    static let stopped = ExtractionFailure("extraction cancelled", cancelled: true)

    static func entry(_ name: String, _ problem: String) -> Self {
        Self("entry '\(name)' \(problem)")
    }
}
