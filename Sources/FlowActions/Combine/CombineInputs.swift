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
        guard pattern.split(separator: "/").contains("**") else { return try glob(pattern) }
        let paths = Set(try globstar(pattern))
        if paths.isEmpty { throw ActionFailure("input pattern '\(pattern)' matches no file") }
        return paths.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// A pattern with a `**` component, which matches any number of folders (none included),
    /// as the up-to-date check reads the same pattern (go-task, .gitignore and bash's globstar
    /// do too): glob(3) takes it for `*`. Folders whose names start with `.` are gone into only
    /// where the pattern spells the dot; a `**` at the end stands for every file under its
    /// folder, as a folder does in `inputs:`.
    private static func globstar(_ pattern: String) throws(ActionFailure) -> [String] {
        let components = pattern.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let star = components.firstIndex(of: "**")!
        let head = "/" + components[..<star].joined(separator: "/")
        let rest = components[(star + 1)...].joined(separator: "/")
        let roots = isPattern(head) ? ((try? glob(head)) ?? []) : [head]
        var found: [String] = []
        for root in roots {
            if rest.isEmpty {
                found += files(under: root)
                continue
            }
            for folder in folders(under: root) {
                if isPattern(rest) {
                    found += (try? expand(join(folder, rest))) ?? []
                } else if access(join(folder, rest), F_OK) == 0 {
                    found.append(join(folder, rest))
                }
            }
        }
        return found
    }

    /// `folder` and every folder under it (not those whose names start with `.`).
    private static func folders(under folder: String) -> [String] {
        guard isDirectory(folder) else { return [] }
        var all = [folder]
        var next = 0
        while next < all.count {
            let current = all[next]
            next += 1
            for name in entries(of: current) where !name.hasPrefix(".") && isDirectory(join(current, name)) {
                all.append(join(current, name))
            }
        }
        return all
    }

    /// Everything under `folder`, at any depth, that is no folder.
    private static func files(under folder: String) -> [String] {
        guard isDirectory(folder) else { return [] }
        return entries(of: folder).flatMap { name in
            isDirectory(join(folder, name)) ? files(under: join(folder, name)) : [join(folder, name)]
        }
    }

    private static func entries(of folder: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    private static func join(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// glob(3): `*`, `?` and `[...]` within one component; matches sorted by bytes.
    private static func glob(_ pattern: String) throws(ActionFailure) -> [String] {
        var matches = glob_t()
        defer { globfree(&matches) }
        switch Glibc.glob(pattern, 0, nil, &matches) {
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
