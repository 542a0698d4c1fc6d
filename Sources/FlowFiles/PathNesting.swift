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
}
