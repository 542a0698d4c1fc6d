import Foundation

/// The few file-system steps extraction needs, on paths, with errno in every failure.
enum FileTree {
    static func errorText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

    /// `lstat`, or nil when nothing is there.
    static func status(_ path: String) -> stat? {
        var info = stat()
        return lstat(path, &info) == 0 ? info : nil
    }

    static func isDirectory(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFDIR }

    /// The names in a folder, without `.` and `..`.
    static func children(_ path: String) throws(ExtractionFailure) -> [String] {
        guard let dir = opendir(path) else { throw ExtractionFailure("cannot read folder '\(path)': \(errorText())") }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Removes a tree without following links, opening read-only folders the archive made.
    static func remove(_ path: String) {
        guard let info = status(path) else { return }
        if isDirectory(info) {
            chmod(path, 0o700)
            for name in (try? children(path)) ?? [] { remove(path + "/" + name) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }

    /// `mkdir -p`.
    static func makeFolders(_ path: String) throws(ExtractionFailure) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw ExtractionFailure("cannot create folder '\(path)': \(error.localizedDescription)")
        }
    }
}
