import FlowFiles

extension OwnOutputs {
    /// The test of an input pattern's matches, with the output globs expanded on `fileSystem`.
    func matcher(fileSystem: any FileSystem) -> Matcher {
        matcher(expanding: fileSystem.files(matching:))
    }

    /// The statuses (links followed) of the outputs named by a path that are there: a match of
    /// an input pattern with one of them is that output reached by another name (a link to it,
    /// or to its folder), which combine leaves out by its device and inode (`CombineInputs`).
    /// The same size, stamps and inode tell the same file, without a stat of every match for
    /// its device.
    func statuses(fileSystem: any FileSystem) -> Set<FileStatus> {
        Set(namedPaths.compactMap { fileSystem.status(of: $0) })
    }
}
