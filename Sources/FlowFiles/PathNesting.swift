/// Whether a path lies below a folder, lexically and by bytes (as tar names entries): the one
/// test the planner, combine and the up-to-date check's own outputs (`OwnOutputs`) share.
package enum PathNesting {
    /// Whether the normalized absolute `path` lies strictly below the folder `folder` (also
    /// normalized); the folder itself is not below itself.
    package static func isInside(_ path: String, folder: String) -> Bool {
        let (path, folder) = (path.utf8, folder.utf8)
        if folder.elementsEqual("/".utf8) { return path.count > 1 }
        return path.starts(with: folder) && path.dropFirst(folder.count).first == UInt8(ascii: "/")
    }

    /// `path` relative to `folder` when it lies strictly below it (`isInside`), else nil. By
    /// bytes: String's `hasPrefix` compares Characters, so it takes an NFD sibling folder
    /// (`cafe\u{301}` beside `café`) for the folder, and misses a name that starts with a
    /// combining mark (the `/` and the mark make one Character). A `folder` written with a
    /// trailing `/` is taken without it.
    package static func relative(_ path: String, to folder: String) -> String? {
        let trimmed = folder.utf8.count > 1 && folder.utf8.last == UInt8(ascii: "/") ? String(folder.dropLast()) : folder
        guard isInside(path, folder: trimmed) else { return nil }
        return String(decoding: path.utf8.dropFirst(trimmed == "/" ? 1 : trimmed.utf8.count + 1), as: UTF8.self)
    }
}
