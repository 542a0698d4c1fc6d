import FlowModel

/// Other tools' templating in a task's strings: go-task's `{{.NAME}}` and GitHub Actions'
/// `${{ ... }}`. flowrun expands neither, so each is a warning with flowrun's form in the note:
/// in a script, `${{ matrix.os }}` is otherwise a shell's "Bad substitution" at run time.
///
/// flowrun's own `${matrix.KEY}` is also one in a script or an env value, where it is not expanded.
///
/// `{{.Name}}` is also Go's own template syntax, which a script hands to `docker --format` or
/// `kubectl -o go-template`: in a `shell` or an `env` value it is taken for go-task's only when
/// NAME is a variable the workflow sets, one of go-task's own (`CLI_ARGS`, `TASK` ...), or in
/// upper case as go-task's variables are by habit (those templates' fields are `.Names`,
/// `.metadata.name`; docker's `.ID` is the exception kept). In the fields flowrun expands
/// (paths, URLs, workdir), it always is.
struct ForeignSyntax {
    /// Names a go-task user means in `{{.NAME}}`: the workflow's variables and go-task's own.
    var variables: Set<String>

    static let goTaskVariables: Set<String> = [
        "CLI_ARGS", "CLI_FORCE", "TASK", "ROOT_DIR", "ROOT_TASKFILE", "TASKFILE", "TASKFILE_DIR", "TASK_DIR", "USER_WORKING_DIR",
        "CHECKSUM", "TIMESTAMP", "TASK_VERSION", "ITEM", "EXIT_CODE",
    ]

    /// Upper-case fields of the Go templates that scripts hand to other programs (`docker ps
    /// --format '{{.ID}}'`, `docker info --format '{{.NCPU}}'`, gox's `-output '{{.OS}}_{{.Arch}}'`):
    /// not go-task's.
    static let upperCaseTemplateFields: Set<String> = ["ID", "NCPU", "OS"]

    /// Whether `name`, outside the workflow's variables, is go-task's: one of its own, or in
    /// upper case (`NAME`, `OUT_DIR`), as go-task's variables are by habit.
    static func isGoTaskName(_ name: String) -> Bool {
        if goTaskVariables.contains(name) { return true }
        let letters = UInt8(ascii: "A")...UInt8(ascii: "Z")
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        let isUpperCase = name.utf8.allSatisfy { letters.contains($0) || digits.contains($0) || $0 == UInt8(ascii: "_") }
        return isUpperCase && name.utf8.contains(where: letters.contains) && !upperCaseTemplateFields.contains(name)
    }

    /// The first foreign expression in `text` and the note that answers it; nil if none.
    /// `expanded`: whether flowrun expands `${NAME}` in this field (a path, a URL, a workdir).
    func finding(in text: String, expanded: Bool) -> (expression: String, note: String)? {
        let bytes = text.utf8
        guard bytes.contains(UInt8(ascii: "{")) else { return nil }
        var index = bytes.startIndex
        while let open = bytes[index...].firstIndex(of: UInt8(ascii: "{")) {
            let next = bytes.index(after: open)
            index = next
            guard next < bytes.endIndex, bytes[next] == UInt8(ascii: "{") else {
                if !expanded, let matrix = Self.matrixReference(in: bytes, at: open) { return matrix }
                continue
            }
            let isGitHub = open > bytes.startIndex && bytes[bytes.index(before: open)] == UInt8(ascii: "$")
            let inside = bytes[bytes.index(after: next)...]
            let close = Self.range(of: "}}", in: inside)
            let body = String(decoding: inside[..<(close?.lowerBound ?? inside.endIndex)], as: UTF8.self)
            let end = close?.upperBound ?? inside.endIndex
            let start = isGitHub ? bytes.index(before: open) : open
            let expression = String(decoding: bytes[start..<end], as: UTF8.self)
            let shown = expression.count > 60 ? String(expression.prefix(57)) + "..." : expression
            if isGitHub { return (shown, Self.gitHubNote(shown, body: body)) }
            let trimmed = body.trimmingSpaces
            guard trimmed.hasPrefix(".") else { continue }
            let name = String(trimmed.dropFirst())
            guard EnvironmentEntry.isValidName(name), expanded || variables.contains(name) || Self.isGoTaskName(name) else {
                continue
            }
            return (shown, variables.contains(name) ? Self.variableNote(shown, name: name) : Self.goTaskNote(shown, name: name))
        }
        return nil
    }

    private static func variableNote(_ shown: String, name: String) -> String {
        "'\(shown)' is go-task templating: flowrun passes env to scripts as $\(name) and expands ${\(name)} in paths"
    }

    /// go-task's own variables are not in a task's env under their names: the note gives
    /// flowrun's way to the same value (`$CLI_ARGS` would be empty), or says there is none.
    private static func goTaskNote(_ shown: String, name: String) -> String {
        let own = "'\(shown)' is go-task's own variable"
        switch name {
        case "CLI_ARGS":
            return "\(own): flowrun hands the words after '--' (flowrun FILE TASK -- ARGS) to a script as \"$@\" and as $FLOWRUN_ARGS, shell-quoted"
        case "TASK": return "\(own): flowrun gives a task its id as $FLOWRUN_TASK"
        case "ROOT_DIR":
            return "\(own): flowrun passes the workflow file's folder to scripts as $FLOWRUN_WORKFLOW_DIR and expands ${FLOWRUN_WORKFLOW_DIR} in paths"
        case "TASKFILE_DIR", "TASK_DIR": return "\(own): a flowrun task runs in its workdir (by default its file's folder), so a script reads it as $PWD"
        default:
            guard goTaskVariables.contains(name) else { return variableNote(shown, name: name) }
            return "\(own), which flowrun does not set"
        }
    }

    /// `${matrix.KEY}` at `open` (its `{`), which flowrun expands only in paths: in a script
    /// it is sh's "Bad substitution", in an env value text. Not `$${`, a literal in a path and
    /// `$$` (the PID) in a script.
    private static func matrixReference(in bytes: String.UTF8View, at open: String.Index) -> (expression: String, note: String)? {
        guard open > bytes.startIndex else { return nil }
        let dollar = bytes.index(before: open)
        guard bytes[dollar] == UInt8(ascii: "$"), dollar == bytes.startIndex || bytes[bytes.index(before: dollar)] != UInt8(ascii: "$") else {
            return nil
        }
        let inside = bytes[bytes.index(after: open)...]
        guard let close = inside.firstIndex(of: UInt8(ascii: "}")) else { return nil }
        let body = String(decoding: inside[..<close], as: UTF8.self)
        guard body.hasPrefix("matrix.") else { return nil }
        let key = String(body.dropFirst("matrix.".count))
        guard EnvironmentEntry.isValidName(key) else { return nil }
        let expression = "${\(body)}"
        return (expression, "'\(expression)' expands in paths, URLs and workdir only: the task has the value in its env as $MATRIX_\(key.uppercased())")
    }

    private static func gitHubNote(_ expression: String, body: String) -> String {
        let trimmed = body.trimmingSpaces
        let parts = trimmed.split(separator: ".", maxSplits: 1).map(String.init)
        if parts.count == 2, EnvironmentEntry.isValidName(parts[1]) {
            switch parts[0] {
            case "env", "vars", "secrets":
                let name = parts[1]
                return "'\(expression)' is a GitHub Actions expression: flowrun passes env to scripts as $\(name) and expands ${\(name)} in paths"
            case "matrix":
                let key = parts[1]
                return
                    "'\(expression)' is a GitHub Actions expression: flowrun gives a matrix value to scripts as $MATRIX_\(key.uppercased()) and expands ${matrix.\(key)} in paths"
            default: break
            }
        }
        return "'\(expression)' is a GitHub Actions expression: flowrun passes env to scripts as $NAME and expands ${NAME} in paths; it has no expressions"
    }

    private static func range(of needle: String, in haystack: Substring.UTF8View) -> Range<String.Index>? {
        let pattern = Array(needle.utf8)
        var index = haystack.startIndex
        while let found = haystack[index...].firstIndex(of: pattern[0]) {
            let after = haystack.index(after: found)
            if after < haystack.endIndex, haystack[after] == pattern[1] { return found..<haystack.index(after: after) }
            index = after
        }
        return nil
    }
}

extension String {
    fileprivate var trimmingSpaces: Substring {
        let start = firstIndex { $0 != " " } ?? endIndex
        let end = lastIndex { $0 != " " }.map { index(after: $0) } ?? start
        return self[start..<max(start, end)]
    }
}
