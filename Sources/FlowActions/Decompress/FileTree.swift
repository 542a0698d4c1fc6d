import FlowFiles
import Foundation

/// The few file-system steps extraction needs, on paths, with errno in every failure.
enum FileTree {
    static func errorText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

    /// `lstat`, or nil when nothing is there.
    static func status(_ path: String) -> stat? {
        var info = stat()
        return lstat(path, &info) == 0 ? info : nil
    }

    static func status(_ path: BytePath) -> stat? {
        var info = stat()
        return path.withCString { lstat($0, &info) } == 0 ? info : nil
    }

    static func isDirectory(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFDIR }

    /// The names in a folder, without `.` and `..`.
    static func children(_ path: String) throws(ActionFailure) -> [String] {
        try children(BytePath(path)).map(BytePath.shown)
    }

    /// The names in a folder as bytes, which need not be UTF-8.
    static func children(_ path: BytePath) throws(ActionFailure) -> [[UInt8]] {
        guard let dir = path.withCString({ opendir($0) }) else { throw ActionFailure("cannot read folder '\(path.shown)': \(errorText())") }
        defer { closedir(dir) }
        var names: [[UInt8]] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { BytePath.bytes($0.bindMemory(to: CChar.self).baseAddress!)! }
            if !name.elementsEqual(".".utf8) && !name.elementsEqual("..".utf8) { names.append(name) }
        }
        return names
    }

    /// Removes a tree without following links, opening read-only folders the archive made.
    static func remove(_ path: String) {
        remove(BytePath(path))
    }

    /// By bytes: a staging folder holds names from the archive that need not be UTF-8.
    static func remove(_ path: BytePath) {
        guard let info = status(path) else { return }
        if isDirectory(info) {
            _ = path.withCString { chmod($0, 0o700) }
            for name in (try? children(path)) ?? [] { remove(path.appending([name])) }
            _ = path.withCString { rmdir($0) }
        } else {
            _ = path.withCString { unlink($0) }
        }
    }

    /// `mkdir -p`, with modes from the umask flowrun started with (`Folders`).
    static func makeFolders(_ path: String) throws(ActionFailure) {
        do {
            try Folders.make(path, access: .shared)
        } catch {
            throw ActionFailure("\(error)")
        }
    }
}
