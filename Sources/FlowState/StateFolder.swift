import Foundation

/// Where flowrun keeps what it remembers of a workflow's runs: `.flowrun/` beside the workflow
/// file, or `$FLOWRUN_STATE_DIR`.
///
/// Several workflow files may share one folder (two files side by side, or one
/// `$FLOWRUN_STATE_DIR`), so everything kept in it is keyed by the workflow's absolute path.
package struct StateFolder: Sendable, Equatable {
    package static let environmentVariable = "FLOWRUN_STATE_DIR"
    package static let defaultName = ".flowrun"

    package let path: String

    package init(path: String) {
        self.path = path
    }

    /// The folder for the workflow file at `workflowFile` (absolute or relative to the current folder).
    package init(forWorkflowAt workflowFile: String, environment: [String: String]) {
        if let override = environment[Self.environmentVariable], !override.isEmpty {
            path = URL(fileURLWithPath: override).standardizedFileURL.path
        } else {
            let file = URL(fileURLWithPath: workflowFile).standardizedFileURL
            path = file.deletingLastPathComponent().appendingPathComponent(Self.defaultName).path
        }
    }

    /// Makes the folder if it is missing, with a `.gitignore` so that its contents stay out of
    /// the user's repository (as `.pytest_cache/` and `.ruff_cache/` do).
    package func create() throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let ignore = (path as NSString).appendingPathComponent(".gitignore")
        guard !FileManager.default.fileExists(atPath: ignore) else { return }
        try Data("# Made by flowrun: its run records and state, not for version control.\n*\n".utf8)
            .write(to: URL(fileURLWithPath: ignore), options: .atomic)
    }

    /// A path inside the folder.
    package func file(_ name: String) -> String {
        (path as NSString).appendingPathComponent(name)
    }
}
