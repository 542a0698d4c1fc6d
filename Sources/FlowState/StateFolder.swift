import FlowFiles
import Foundation

/// Where flowrun keeps what it remembers of a workflow's runs: `.flowrun/` beside the workflow
/// file, or `$FLOWRUN_STATE_DIR`.
///
/// Several workflow files may share one folder (two files side by side, or one
/// `$FLOWRUN_STATE_DIR`), so everything kept in it is keyed by the workflow's absolute path.
package struct StateFolder: Sendable, Equatable {
    package static let environmentVariable = "FLOWRUN_STATE_DIR"
    package static let defaultName = PathGlob.stateFolderName

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

    /// Makes the folder if it is missing, private to its user (0700: records hold task output,
    /// which may hold secrets; one an older flowrun made wider is narrowed), with a `.gitignore`
    /// so that its contents stay out of the user's repository (as `.pytest_cache/` does).
    package func create() throws {
        try Folders.make(path, access: .owner)
        let ignore = (path as NSString).appendingPathComponent(".gitignore")
        guard !FileManager.default.fileExists(atPath: ignore) else { return }
        try AtomicFile.write(
            "# Made by flowrun: its run records and state, not for version control.\n*\n", to: ignore, access: .owner)
    }

    /// A path inside the folder.
    package func file(_ name: String) -> String {
        (path as NSString).appendingPathComponent(name)
    }
}
