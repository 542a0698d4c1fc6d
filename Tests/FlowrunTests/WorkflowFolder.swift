import Foundation

/// A temporary folder holding `flow.yaml` and the files a test writes, run again and again (the
/// up-to-date and resume tests).
class WorkflowFolder {
    let folder: TemporaryFolder
    var url: URL { folder.url }

    init(_ workflow: String, files: [String: String] = [:]) throws {
        folder = try TemporaryFolder()
        try write("flow.yaml", workflow)
        for (path, text) in files { try write(path, text) }
    }

    func write(_ path: String, _ text: String) throws {
        let file = url.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
    }

    func read(_ path: String) throws -> String {
        try String(contentsOf: url.appendingPathComponent(path), encoding: .utf8)
    }

    func remove(_ path: String) throws {
        try FileManager.default.removeItem(at: url.appendingPathComponent(path))
    }

    /// The compiled plan kept in `.flowrun/` (`plan-*.bin`), if there is one.
    var planCacheFile: String? {
        let state = url.appendingPathComponent(".flowrun").path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: state)) ?? []
        return names.first { $0.hasPrefix("plan-") && $0.hasSuffix(".bin") }.map { state + "/" + $0 }
    }

    /// The inode of the file at `path`: one written again (renamed into place) gets a new one.
    static func inode(_ path: String) -> UInt64? {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_ino) : nil
    }
}
