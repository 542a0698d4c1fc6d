import FlowFiles
import FlowModel
import FlowPlanning
import Foundation

/// What `flowrun export` makes for an engine: the file's text, and what carried over and what
/// did not, for stderr and `--dry-run`.
package struct Export: Sendable {
    package var text: String
    /// How each field maps, one line each (`needs -> needs: 9 edges`).
    package var mapped: [String] = []
    /// What does not carry over, one line each: printed on stderr, also in a comment of the file.
    package var notCarried: [String] = []
}

/// What the command line gives the exporters beside the plan.
package struct ExportOptions: Sendable {
    /// The workflow file as the exported jobs name it: relative to `root`.
    package var workflowPath: String
    /// The absolute folder the exported paths are relative to: the repository's root, where a
    /// GitHub job checks out and an Argo task's workspace starts.
    package var root: String
    /// Words added to every `flowrun run` (the `--env` assignments of the export).
    package var extraArguments: [String] = []
    /// GitHub: the runner's labels (one is written as a string, several as a list, as a
    /// self-hosted runner is picked), and the command of the "Install flowrun" step.
    package var runsOn = ["ubuntu-latest"]
    package var installCommand: String?
    /// Argo: the image with flowrun and the tasks' tools (required), a WorkflowTemplate rather
    /// than a Workflow, the size of the shared workspace, and the folder of the image that
    /// holds the project (default: the image's working directory).
    package var image = ""
    package var workflowTemplate = false
    package var volumeSize = "1Gi"
    package var source: String?

    package init(workflowPath: String, root: String) {
        self.workflowPath = workflowPath
        self.root = root
    }
}

extension ExportOptions {
    /// `path` relative to `root`, or nil when it is outside it.
    func relative(_ path: String) -> String? {
        // By bytes (`PathNesting.relative`): an output in an NFD sibling of the root is outside it.
        if path.utf8.elementsEqual(root.utf8) || (path + "/").utf8.elementsEqual(root.utf8) { return "." }
        return PathNesting.relative(path, to: root)
    }

    /// The `flowrun run` words that run exactly `tasks` of the workflow.
    func runArguments(_ tasks: [TaskID], noRetry: Bool) -> [String] {
        ["run", workflowPath] + extraArguments + tasks.flatMap { ["--only=\($0)"] } + (noRetry ? ["--no-retry"] : [])
    }
}

/// Words for a POSIX shell: each single-quoted unless it is made only of safe characters.
enum ShellWords {
    static func quoted(_ words: [String]) -> String {
        words.map(quoted).joined(separator: " ")
    }

    static func quoted(_ word: String) -> String {
        let safe = !word.isEmpty && word.utf8.allSatisfy(isSafe)
        return safe ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// A path that may be a glob: `*`, `?` and `[...]` left for the shell to expand, every
    /// other character quoted where it needs to be.
    static func pattern(_ path: String) -> String {
        var out = ""
        for character in path {
            if let byte = character.asciiValue, isSafe(byte) || "*?[]".utf8.contains(byte) {
                out.append(character)
            } else {
                out += quoted(String(character))
            }
        }
        return out.isEmpty ? "''" : out
    }

    private static func isSafe(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"),
            UInt8(ascii: "+"), UInt8(ascii: ","):
            true
        default: false
        }
    }
}
