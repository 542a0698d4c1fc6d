import FlowFiles
import FlowPlanning
import Foundation

/// The files a combine task reads, in order: its `inputs` with glob patterns expanded.
///
/// Expanded when the attempt starts, not when the run is planned: earlier tasks of the run
/// may create the files.
struct CombineInputs {
    struct Input: Equatable {
        /// Absolute.
        var path: String
        /// The name an archive stores: `prefix` and the path relative to `base` (or, with no
        /// base, to the workdir; a file outside the workdir by its absolute path without its
        /// leading `/`, as tar stores it).
        var name: String
    }

    var files: [Input]

    /// `patterns` are absolute (the planner resolved them against `workdir`). A pattern with
    /// `*`, `?` or `[` expands to its matches in sorted (byte) order and must match something;
    /// any other path is taken as it is, and must exist when read. A pattern's matches leave
    /// out `output` and the task's other declared `outputs` (`OwnOutputs`: a rerun of
    /// `inputs: ["*.txt"], to: all.txt` must not read the last run's output, as tar leaves out
    /// the archive it writes, and the up-to-date check leaves out the same files, so that what
    /// is read is what is fingerprinted); `output` named as an input is an error.
    ///
    /// A match outside `base` is an error, a check kept behind the planner's, which refuses a
    /// pattern reaching outside it (a wildcard never matches `..`).
    ///
    /// `written`: the patterns as the workflow wrote them, entry for entry; an error names a
    /// pattern so (`nothing/*.x`, as make names a missing prerequisite), not resolved.
    init(
        patterns: [String], written: [String]? = nil, workdir: String, output: String, outputs: [String] = [], base: String? = nil,
        prefix: String = ""
    ) throws(ActionFailure) {
        var files: [Input] = []
        let own = OwnOutputs([output] + outputs).matcher()
        // `to` by its device and inode too, as cat and tar tell their output: reached by another
        // path (a link to its folder), it was read into the new output, growing it every run.
        let outputFile = Self.identity(output)
        func isOutput(_ path: String) -> Bool { outputFile != nil && Self.identity(path) == outputFile }
        let shown = written?.count == patterns.count ? written! : patterns
        for (pattern, shown) in zip(patterns, shown) {
            // By bytes: String's == takes an NFD spelling of the output's name for the output.
            guard !pattern.utf8.elementsEqual(output.utf8) else { throw ActionFailure("input \(shown) is the output 'to' itself") }
            let paths = try Self.expand(pattern, shown: shown)
            if !Self.isPattern(pattern), isOutput(pattern) { throw ActionFailure("input \(shown) is the output 'to' itself") }
            let read = Self.isPattern(pattern) ? paths.filter { !own.contains($0) && !isOutput($0) } : paths
            if read.isEmpty { throw ActionFailure("input pattern '\(shown)' matches no file but the task's outputs") }
            for path in read {
                if Self.isPattern(pattern) { try Self.checkUTF8Name(path, matchedBy: shown, workdir: workdir) }
                files.append(Input(path: path, name: prefix + (try Self.name(of: path, workdir: workdir, base: base))))
            }
        }
        self.files = files
    }

    /// The file at `path` (links followed) by device and inode; nil when there is none.
    private static func identity(_ path: String) -> [UInt64]? {
        var info = stat()
        return stat(path, &info) == 0 ? [UInt64(info.st_dev), UInt64(info.st_ino)] : nil
    }

    static func isPattern(_ path: String) -> Bool {
        path.contains { $0 == "*" || $0 == "?" || $0 == "[" }
    }

    /// A pattern's matches, by the walk the up-to-date check reads the same pattern with
    /// (`PathGlob`): `*`, `?` and `[...]` within one component, `**` any number of folders
    /// (none included; a `**` at the end every file under its folder), folders whose names start
    /// with `.` gone into only where the pattern spells the dot, the names of the folders walked
    /// through never read as patterns. So the files combined are the files fingerprinted, and an
    /// edit to any of them makes the task run again.
    private static func expand(_ pattern: String, shown: String) throws(ActionFailure) -> [String] {
        guard isPattern(pattern) else {
            // Missing, it is named as written too, not by the path resolved against the workdir.
            var info = stat()
            guard stat(pattern, &info) == 0 else { throw ActionFailure("cannot open input '\(shown)': \(String(cString: strerror(errno)))") }
            return [pattern]
        }
        let paths = PathGlob.files(matching: pattern, as: .paths)
        if paths.isEmpty { throw ActionFailure("input pattern '\(shown)' matches no file") }
        return paths
    }

    /// A name that is not UTF-8 comes out of a folder's listing with U+FFFD in it (a String
    /// cannot hold it), a path no open reaches: said so, rather than "No such file or
    /// directory" of a file the user sees there. A real U+FFFD in a name is reached.
    private static func checkUTF8Name(_ path: String, matchedBy pattern: String, workdir: String) throws(ActionFailure) {
        var info = stat()
        guard path.unicodeScalars.contains("\u{FFFD}"), lstat(path, &info) != 0 else { return }
        let shown = (try? name(of: path, workdir: workdir, base: nil)) ?? path
        throw ActionFailure(
            "input '\(shown)' (matched by '\(pattern)') has a name that is not UTF-8 (shown with \u{FFFD}), which flowrun cannot open: rename it")
    }

    private static func name(of path: String, workdir: String, base: String?) throws(ActionFailure) -> String {
        if let base {
            guard let name = PathNesting.relative(PathResolution.normalize(path), to: base) else {
                throw ActionFailure("input \(path) is outside base \(base)")
            }
            return name
        }
        // By bytes, as tar names entries (`PathNesting.relative`).
        return PathNesting.relative(path, to: workdir) ?? String(decoding: path.utf8.drop { $0 == UInt8(ascii: "/") }, as: UTF8.self)
    }
}
