import FlowFiles
import Foundation

/// Puts a finished staging folder in place at `to`.
///
/// A missing or empty `to` becomes the staging folder by one rename. An existing `to` is
/// merged into, as `tar -C to -x` does: the archive's files replace same-named files, other
/// files stay. Every conflict (a file where the archive has a folder, or the other way round)
/// is found before anything moves; every file replaced is first moved aside (`MergeJournal`),
/// so that a step that fails part-way (a read-only folder, another file system) puts back
/// what was replaced and takes out what was added: `to` is left as it was. Where modes are
/// restored (root), a folder `to` has already takes the mode of the archive's entry for it,
/// as bsdtar and GNU tar set it (a folder the archive has no entry for keeps its own).
enum StagingPlacement {
    /// `written`: the files' digests, noted again for the files a merge moves one by one.
    /// `folderEntries`: the paths below `staging` that the archive has a folder entry for.
    static func place(
        _ staging: String, at to: String, written: WrittenFiles, folderEntries: Set<[[UInt8]]> = []
    ) throws(ActionFailure) {
        guard let existing = FileTree.status(to) else {
            return try rename(staging, to)
        }
        // A `to` that is a symlink to a folder is merged into, as `tar -C` follows it; a rename
        // would replace the link itself.
        let isLink = existing.st_mode & S_IFMT == S_IFLNK
        var followed = stat()
        guard isLink ? stat(to, &followed) == 0 && FileTree.isDirectory(followed) : FileTree.isDirectory(existing) else {
            throw ActionFailure("'\(to)' exists and is not a folder")
        }
        if !isLink, try FileTree.children(to).isEmpty, Foundation.rename(staging, to) == 0 { return }
        try findConflicts(BytePath(staging), BytePath(to))
        let journal = try MergeJournal(beside: staging, written: written)
        do {
            try merge(BytePath(staging), BytePath(to), [], folderEntries, journal)
        } catch {
            throw journal.undo(after: error, at: to)
        }
        journal.finish()
        FileTree.remove(staging)
    }

    static func rename(_ from: String, _ to: String) throws(ActionFailure) {
        try rename(BytePath(from), BytePath(to))
    }

    static func rename(_ from: BytePath, _ to: BytePath) throws(ActionFailure) {
        guard from.withCString({ source in to.withCString { Foundation.rename(source, $0) } }) == 0 else {
            throw ActionFailure("cannot move '\(from.shown)' to '\(to.shown)': \(FileTree.errorText())")
        }
    }

    /// By bytes: the staging folder holds the archive's names, which need not be UTF-8.
    private static func findConflicts(_ source: BytePath, _ destination: BytePath) throws(ActionFailure) {
        for name in try FileTree.children(source) {
            let from = source.appending([name]), to = destination.appending([name])
            guard let existing = FileTree.status(to), let incoming = FileTree.status(from) else { continue }
            switch (FileTree.isDirectory(incoming), FileTree.isDirectory(existing)) {
            case (true, true):
                // A folder the archive made unreadable (an empty one of mode 0000), run as another
                // user than root, is opened for the look and closed again: the merge takes the
                // archive's mode from it. Unopened, a second extraction failed ("cannot read folder").
                let opened = from.withCString { access($0, R_OK | X_OK) != 0 && chmod($0, 0o700) == 0 }
                defer { if opened { _ = from.withCString { chmod($0, incoming.st_mode & 0o7777) } } }
                try findConflicts(from, to)
            case (false, false): continue
            case (true, false): throw ActionFailure("'\(to.shown)' exists and is not a folder, but the archive has a folder there")
            case (false, true): throw ActionFailure("'\(to.shown)' is a folder, but the archive has a file there")
            }
        }
    }

    /// In name order, so that what a failure part-way has already done does not depend on the
    /// file system's order. `relative`: `source`'s path below the staging folder.
    private static func merge(
        _ source: BytePath, _ destination: BytePath, _ relative: [[UInt8]], _ folderEntries: Set<[[UInt8]]>, _ journal: MergeJournal
    ) throws(ActionFailure) {
        _ = source.withCString { chmod($0, 0o700) }  // moving out of a folder needs write access to it
        for name in try FileTree.children(source).sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            let from = source.appending([name]), to = destination.appending([name])
            if let existing = FileTree.status(to), FileTree.isDirectory(existing) {
                // Read before the merge below opens the staging folder up.
                let incoming = FileTree.status(from)
                try merge(from, to, relative + [name], folderEntries, journal)
                if let incoming, folderEntries.contains(relative + [name]) {
                    try journal.setMode(of: to, to: incoming.st_mode & 0o7777, from: existing.st_mode & 0o7777)
                }
            } else {
                try journal.move(from, to)
            }
        }
    }
}
