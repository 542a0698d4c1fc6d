import Foundation

/// The files an `inputs` or `outputs` entry names: a path, or a glob with `*`, `?`, `[...]` and
/// `**` (any number of folders, as in go-task and .gitignore). A folder stands for every file
/// under it, so `to: build/` of a decompress task and `inputs: [src]` mean what they say.
/// Names starting with `.` match only a pattern that spells the dot, as in the shell.
/// flowrun's own state folder (`.flowrun/`) is never walked into, as git's walks leave out `.git/`.
package enum PathGlob {
    /// The state folder's name (`StateFolder.defaultName`): a folder of this name met in a walk
    /// is left out. Its files change with every run (the record being written, the lock), so a
    /// task whose `**` or folder took them in was never up to date, and a combine archived the
    /// run's own half-written record and the private (0600) state files. Named as a path, or
    /// spelled out by a pattern's component, it is read as any other.
    package static let stateFolderName = ".flowrun"

    package static func isPattern(_ path: String) -> Bool {
        path.utf8.contains { $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "[") }
    }

    /// What a match stands for.
    package enum Matches {
        /// The regular files: a folder's are every regular file under it (`inputs:`, `outputs:`).
        case regularFiles
        /// The paths matched, whatever they are, so that a reader can refuse a folder or a FIFO
        /// by its name (combine); a `**` at the end still stands for every file under its folder.
        case paths
        /// As `regularFiles`, and, met in a folder's walk, the entries a task's output holds that
        /// are no regular file reached: a symbolic link that leads nowhere or to a folder
        /// (`l -> missing`, `l -> .`, `current -> v2`; not followed), and a folder with nothing
        /// to walk (empty or unreadable). Each is stamped as itself (`lstat`), so that an output
        /// folder holding only such entries is there, and a link retargeted or removed is a change.
        case outputEntries
    }

    /// The regular files `pattern` (an absolute path) names, sorted by bytes, without duplicates.
    /// With `.paths`, what a pattern matches instead, by the same walk: combine reads exactly
    /// the files the up-to-date check fingerprints (or refuses a match that is no regular file).
    package static func files(matching pattern: String, as matches: Matches = .regularFiles) -> [String] {
        files(matching: pattern, as: matches, until: nil) ?? []
    }

    /// The same, asking `stop` at every name: nil once it is requested (a walk of 200,000 files
    /// takes seconds, and Ctrl-C must not wait for it), what was found until then thrown away.
    package static func files(matching pattern: String, as matches: Matches = .regularFiles, until stop: SetOnceFlag?) -> [String]? {
        everyMatch(of: pattern, as: matches, until: stop).map(unique)
    }

    /// Each match as the walk meets it, unsorted: a path met twice is named twice.
    static func everyMatch(of pattern: String, as matches: Matches = .regularFiles, until stop: SetOnceFlag? = nil) -> [String]? {
        var found = Found(stop: stop, keepsEntries: matches == .outputEntries)
        if isPattern(pattern) {
            // The folders before the first wildcard are walked to at once, not one stat each.
            // By bytes: split by Characters, a folder starting with a combining mark stayed
            // joined to the one before it, and `w/\u{301}x*` matched no name.
            let components = pattern.utf8.split(separator: UInt8(ascii: "/")).map { String(decoding: $0, as: UTF8.self) }
            let literal = components.prefix { !isPattern($0) }
            walk("/" + literal.joined(separator: "/"), components[literal.count...], matches, listed: false, into: &found)
        } else {
            addFiles(under: pattern, into: &found)
        }
        if found.stopNow() { return nil }
        return found.paths
    }

    /// Sorted by bytes, without duplicates.
    private static func unique(_ found: [String]) -> [String] {
        var found = found
        if found.count < 2 { return found }
        // By bytes, not by String's ==: that one takes NFC and NFD spellings of a name for one,
        // and they are two files (a Set dropped one: combine left it out, the check never read it).
        found.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        var unique: [String] = [found[0]]
        for path in found.dropFirst() where !path.utf8.elementsEqual(unique[unique.count - 1].utf8) { unique.append(path) }
        return unique
    }

    /// `listed`: `path` ends in a name a folder listing gave. `above`: the folders a `**` went
    /// through to reach `path`.
    private static func walk(
        _ path: String, _ rest: ArraySlice<String>, _ matches: Matches, listed: Bool, above: [FolderID] = [],
        into found: inout Found
    ) {
        guard !found.stopNow() else { return }
        guard let component = rest.first else {
            addMatch(path, matches, listed: listed, above: above, into: &found)
            return
        }
        let remaining = rest.dropFirst()
        if component == "**" {
            let here = FolderID(path)
            if let here, above.contains(here) { return }
            if remaining.isEmpty {
                // Every file under `path`, the folders below with theirs: each met once (taking
                // each folder below with this `**` again met a file once per folder above it).
                addFiles(under: path, listed: listed, above: above, into: &found)
                return
            }
            walk(path, remaining, matches, listed: listed, above: above, into: &found)
            guard let here else { return }
            for name in entries(of: path) where !name.hasPrefix(".") {
                let child = join(path, name)
                if isDirectory(child) { walk(child, rest, matches, listed: true, above: above + [here], into: &found) }
            }
        } else if isPattern(component) {
            for name in entries(of: path) where fnmatch(component, name, FNM_PERIOD) == 0 {
                walk(join(path, name), remaining, matches, listed: true, above: above, into: &found)
            }
        } else {
            let child = join(path, component)
            if remaining.isEmpty || isDirectory(child) {
                walk(child, remaining, matches, listed: false, above: above, into: &found)
            }
        }
    }

    /// The end of a walk: `path` as `matches` takes it.
    private static func addMatch(_ path: String, _ matches: Matches, listed: Bool, above: [FolderID], into found: inout Found) {
        switch matches {
        case .regularFiles, .outputEntries:
            addFiles(under: path, listed: listed, above: above, into: &found)
        case .paths:
            var info = stat()
            if listed || lstat(path, &info) == 0 { found.append(path) }
        }
    }

    /// `path` if it is a file, every file under it if it is a folder, nothing if it is missing.
    /// A name a folder listed (`listed`) that not even lstat reaches is kept: a name that is not
    /// UTF-8, which a String cannot hold, comes out of the listing with U+FFFD in it. Kept, it is
    /// a file that cannot be read, so its task runs rather than being up to date without it.
    /// Symbolic links are followed (a folder named stands for what it holds, as `tar -h` reads
    /// it), but a folder met again below itself (`above`: a link to `..`) is not gone into
    /// again, as `find -L` does: the walk went 40 links deep, reading every file 40 times, and two
    /// such links made it 2^40 steps long.
    private static func addFiles(
        under path: String, listed: Bool = false, above: [FolderID] = [], into found: inout Found
    ) {
        guard !found.stopNow() else { return }
        var info = stat()
        guard stat(path, &info) == 0 else {
            if listed && lstat(path, &info) != 0 { found.append(path) }
            if listed && found.keepsEntries && isLink(path) { found.append(path) }
            return
        }
        if info.st_mode & S_IFMT == S_IFREG {
            found.append(path)
        } else if info.st_mode & S_IFMT == S_IFDIR {
            // An output's link to a folder is the link, stamped by its target's text as tar keeps
            // it, and not followed: retargeted to another folder with the same files, it changed.
            if listed && found.keepsEntries && isLink(path) {
                found.append(path)
                return
            }
            let here = FolderID(info)
            guard !above.contains(here) else { return }
            let names = entries(of: path).filter { !($0 == stateFolderName && isDirectory(join(path, $0))) }
            if names.isEmpty && found.keepsEntries { found.append(path) }
            for name in names {
                addFiles(under: join(path, name), listed: true, above: above + [here], into: &found)
            }
        }
    }

    private static func isLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
    }

    /// The paths found so far, and whether the walk was asked to stop.
    private struct Found {
        let stop: SetOnceFlag?
        /// `Matches.outputEntries`.
        let keepsEntries: Bool
        var paths: [String] = []
        private(set) var isStopped = false

        init(stop: SetOnceFlag?, keepsEntries: Bool = false) { (self.stop, self.keepsEntries) = (stop, keepsEntries) }

        mutating func append(_ path: String) { paths.append(path) }

        /// Whether the walk is to stop: asked at every name, and remembered.
        mutating func stopNow() -> Bool {
            if !isStopped, stop?.isSet == true { isStopped = true }
            return isStopped
        }
    }

    /// A folder by device and inode, whatever path reached it.
    private struct FolderID: Equatable {
        var device: UInt64
        var inode: UInt64

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }

        /// The folder at `path` (links followed); nil if it is no folder.
        init?(_ path: String) {
            var info = stat()
            guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
            self.init(info)
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
}
