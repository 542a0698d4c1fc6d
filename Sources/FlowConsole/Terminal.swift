import Glibc

/// What the process's output streams are connected to: the one place that decides on colour.
public enum Terminal {
    /// Whether `descriptor` is an interactive terminal that understands ANSI codes (`TERM=dumb` does not).
    public static func isInteractive(_ descriptor: Int32, environment: [String: String]) -> Bool {
        isatty(descriptor) == 1 && environment["TERM"] != "dumb"
    }

    /// Colour on an interactive terminal, unless `NO_COLOR` is set (https://no-color.org) or `--no-color` was given.
    public static func usesColor(_ descriptor: Int32, environment: [String: String], noColorFlag: Bool = false) -> Bool {
        !noColorFlag && (environment["NO_COLOR"] ?? "").isEmpty && isInteractive(descriptor, environment: environment)
    }
}

/// ANSI styles, applied only when colour is on.
public struct Style: Sendable {
    public var enabled: Bool
    public init(enabled: Bool) { self.enabled = enabled }

    public func bold(_ text: String) -> String { wrap(text, "1") }
    public func red(_ text: String) -> String { wrap(text, "1;31") }
    public func green(_ text: String) -> String { wrap(text, "32") }
    public func yellow(_ text: String) -> String { wrap(text, "33") }
    public func cyan(_ text: String) -> String { wrap(text, "36") }
    public func dim(_ text: String) -> String { wrap(text, "2") }

    private func wrap(_ text: String, _ code: String) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
