/// A task's own outputs, which its input globs and folders leave out: `inputs: ['*.txt']` with
/// `to: all.txt` does not count `all.txt` as an input, as a go-task `generates` file or a ninja
/// output is not its own input. Counted, the output changed during every run, so the task was
/// never up to date. An input path written out is taken as it is (a task that edits a file in
/// place declares it on both sides, and runs every time, as before).
///
/// The up-to-date check (which fingerprints the inputs) and combine (which reads them) leave
/// out the same files, so that what is read is what is fingerprinted.
package struct OwnOutputs: Sendable {
    package static let none = OwnOutputs([])

    /// The output paths without a trailing `/`: a file, or a folder standing for what it holds.
    private let paths: [String]
    private let globs: [String]

    /// `outputs`: absolute paths and globs.
    package init(_ outputs: [String]) {
        var paths: [String] = []
        var globs: [String] = []
        for output in outputs {
            if PathGlob.isPattern(output) {
                globs.append(output)
            } else {
                paths.append(output.utf8.count > 1 && output.hasSuffix("/") ? String(output.dropLast()) : output)
            }
        }
        self.paths = paths
        self.globs = globs
    }

    package var isEmpty: Bool { paths.isEmpty && globs.isEmpty }

    /// The outputs named by a path (not a glob): a file, or a folder.
    package var namedPaths: [String] { paths }

    /// The test of the files an input pattern matched, with the output globs expanded now by
    /// `expand` (`PathGlob.files(matching:)`, or a file system's twin of it).
    package func matcher(expanding expand: (String) -> [String] = { PathGlob.files(matching: $0) }) -> Matcher {
        Matcher(paths: paths, globbed: Set(globs.flatMap(expand).map { Array($0.utf8) }))
    }

    package struct Matcher {
        let paths: [String]
        /// By bytes: String's == takes the NFC and NFD spellings of a name for one file.
        let globbed: Set<[UInt8]>

        /// Whether `path` is an output, or a file under an output folder: the folder itself
        /// counts here, unlike for `PathNesting.isInside`.
        package func contains(_ path: String) -> Bool {
            if globbed.contains(Array(path.utf8)) { return true }
            return paths.contains { path.utf8.elementsEqual($0.utf8) || PathNesting.isInside(path, folder: $0) }
        }
    }
}
