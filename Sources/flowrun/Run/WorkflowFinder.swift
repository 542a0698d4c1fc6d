import FlowModel
import Foundation

/// Finds the workflow file when the command line names none: `flowrun.yaml` or `flowrun.yml` in
/// the starting folder, then in each parent, as git finds `.git` and go-task its Taskfile.
///
/// The walk stops below a folder owned by another user (go-task does the same): a
/// `/tmp/flowrun.yaml` someone else wrote must not run when you forgot to create your own.
enum WorkflowFinder {
    static let names = ["flowrun.yaml", "flowrun.yml"]

    struct Found {
        /// `flowrun.yaml` (or `DIR/flowrun.yaml`) in the starting folder; an absolute path in a parent.
        var path: String
        var isInStartingFolder: Bool
    }

    /// The file found from `directory` (the current folder when nil), or an error naming
    /// every folder searched.
    static func find(from directory: String?) throws -> Found {
        let start = URL(fileURLWithPath: directory ?? FileManager.default.currentDirectoryPath).standardizedFileURL.path
        var isFolder: ObjCBool = false
        if let directory, !FileManager.default.fileExists(atPath: start, isDirectory: &isFolder) || !isFolder.boolValue {
            throw CommandFailure("cannot look for the workflow file from \(directory) (-d/--dir): no such folder")
        }
        var searched: [String] = []
        var folder = start
        while true {
            if folder != start, let owner = owner(of: folder), owner != geteuid() {
                throw CommandFailure(notFound(searched, stoppedAt: folder))
            }
            searched.append(folder)
            for name in names where isFile(folder == "/" ? "/\(name)" : "\(folder)/\(name)") {
                if folder == start {
                    return Found(path: directory.map { ($0.hasSuffix("/") ? $0 : $0 + "/") + name } ?? name, isInStartingFolder: true)
                }
                return Found(path: folder == "/" ? "/\(name)" : "\(folder)/\(name)", isInStartingFolder: false)
            }
            guard folder != "/" else { throw CommandFailure(notFound(searched, stoppedAt: nil)) }
            folder = folder.pathFolder
        }
    }

    private static func notFound(_ searched: [String], stoppedAt: String?) -> String {
        var message = "no workflow file given, and no flowrun.yaml or flowrun.yml in \(searched.joined(separator: ", "))"
        if let stoppedAt { message += " (stopped at \(stoppedAt): owned by another user)" }
        return message
    }

    private static func isFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }

    private static func owner(of folder: String) -> uid_t? {
        var info = stat()
        return stat(folder, &info) == 0 ? info.st_uid : nil
    }
}
