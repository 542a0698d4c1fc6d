import Glibc

/// What the process's output streams are connected to: the one place that decides on colour.
package enum Terminal {
    /// Whether `descriptor` is an interactive terminal that understands ANSI codes (`TERM=dumb` does not).
    package static func isInteractive(_ descriptor: Int32, environment: [String: String]) -> Bool {
        isatty(descriptor) == 1 && environment["TERM"] != "dumb"
    }

    /// Colour on an interactive terminal, unless `NO_COLOR` is set (https://no-color.org) or `--no-color` was given.
    package static func usesColor(_ descriptor: Int32, environment: [String: String], noColorFlag: Bool = false) -> Bool {
        !noColorFlag && (environment["NO_COLOR"] ?? "").isEmpty && isInteractive(descriptor, environment: environment)
    }
}

/// ANSI styles, applied only when colour is on.
package struct Style: Sendable {
    package var enabled: Bool
    package init(enabled: Bool) { self.enabled = enabled }

    package func bold(_ text: String) -> String { wrap(text, "1") }
    package func red(_ text: String) -> String { wrap(text, "1;31") }
    package func green(_ text: String) -> String { wrap(text, "32") }
    package func yellow(_ text: String) -> String { wrap(text, "33") }
    package func cyan(_ text: String) -> String { wrap(text, "36") }
    package func dim(_ text: String) -> String { wrap(text, "2") }

    private func wrap(_ text: String, _ code: String) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
