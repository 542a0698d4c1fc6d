/// What runs a `shell` script (`interpreter:` on a task or in `defaults`).
///
/// A string script is handed to it as one argument, never interpolated; an argv-form `shell`
/// runs as it is, without one.
package enum Interpreter: Hashable, Sendable {
    /// `/bin/sh -e -c SCRIPT`: the default, errexit without pipefail, as POSIX sh has it.
    case sh
    /// `bash --noprofile --norc -eo pipefail -c SCRIPT`, as GitHub Actions' `shell: bash`.
    case bash
    /// `python3 -c SCRIPT`.
    case python
    /// These words, then the script as the last argument (`[node, -e]`, `[pwsh, -Command]`).
    case words([String])

    /// The names a file may give; a list is the other form.
    package static let names = ["sh", "bash", "python"]

    package init?(name: String) {
        switch name {
        case "sh": self = .sh
        case "bash": self = .bash
        case "python": self = .python
        default: return nil
        }
    }

    /// The argv that runs `script` with `arguments` as its positional parameters: for sh and
    /// bash after a `$0` (the shell's name, as without arguments), for python in `sys.argv[1:]`,
    /// for a list after the script.
    package func argv(running script: String, arguments: [String] = []) -> [String] {
        switch self {
        case .sh: ["/bin/sh", "-e", "-c", script] + (arguments.isEmpty ? [] : ["/bin/sh"] + arguments)
        case .bash: ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script] + (arguments.isEmpty ? [] : ["bash"] + arguments)
        case .python: ["python3", "-c", script] + arguments
        case .words(let words): words + [script] + arguments
        }
    }

    /// As a file writes it: a name, or the words in brackets.
    package var description: String {
        switch self {
        case .sh: "sh"
        case .bash: "bash"
        case .python: "python"
        case .words(let words): "[" + words.joined(separator: ", ") + "]"
        }
    }
}
