import FlowPlanning
import Foundation
import Glibc

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
    /// out `output` (a rerun of `inputs: ["*.txt"], to: all.txt` must not read the last run's
    /// output, as tar leaves out the archive it writes); `output` named as an input is an error.
    ///
    /// A match outside `base` (a pattern's `.*` matches `..`) is an error: the planner has
    /// checked the patterns themselves.
    init(patterns: [String], workdir: String, output: String, base: String? = nil, prefix: String = "") throws(ActionFailure) {
        var files: [Input] = []
        for pattern in patterns {
            guard pattern != output else { throw ActionFailure("input \(pattern) is the output 'to' itself") }
            let paths = try Self.expand(pattern).filter { $0 != output }
            if paths.isEmpty { throw ActionFailure("input pattern '\(pattern)' matches no file but the output") }
            for path in paths {
                files.append(Input(path: path, name: prefix + (try Self.name(of: path, workdir: workdir, base: base))))
            }
        }
        self.files = files
    }

    static func isPattern(_ path: String) -> Bool {
        path.contains { $0 == "*" || $0 == "?" || $0 == "[" }
    }

    private static func expand(_ pattern: String) throws(ActionFailure) -> [String] {
        guard isPattern(pattern) else { return [pattern] }
        var matches = glob_t()
        defer { globfree(&matches) }
        switch glob(pattern, 0, nil, &matches) {
        case 0:
            break
        case GLOB_NOMATCH:
            throw ActionFailure("input pattern '\(pattern)' matches no file")
        case GLOB_NOSPACE:
            throw ActionFailure("input pattern '\(pattern)': out of memory")
        default:
            throw ActionFailure("input pattern '\(pattern)': cannot read a folder it names")
        }
        let paths = (0..<Int(matches.gl_pathc)).compactMap { matches.gl_pathv[$0].map { String(cString: $0) } }
        // glob(3) sorts by the locale's collation; the byte order is the same everywhere.
        return paths.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    private static func name(of path: String, workdir: String, base: String?) throws(ActionFailure) -> String {
        if let base {
            let normalized = PathResolution.normalize(path)
            guard PathResolution.isInside(normalized, folder: base) else {
                throw ActionFailure("input \(path) is outside base \(base)")
            }
            return String(decoding: normalized.utf8.dropFirst(base == "/" ? 1 : base.utf8.count + 1), as: UTF8.self)
        }
        let folder = workdir.hasSuffix("/") ? workdir : workdir + "/"
        if path.hasPrefix(folder) { return String(path.dropFirst(folder.count)) }
        return String(path.drop { $0 == "/" })
    }
}
