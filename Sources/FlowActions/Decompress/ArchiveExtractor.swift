import CArchive
import FlowFiles
import FlowModel
import Foundation

/// Extracts one archive into a staging folder beside `to`, then puts it in place.
///
/// Blocking: run it on a worker. Memory stays bounded: data moves in libarchive's blocks, never
/// whole entries. `isCancelled` is asked between blocks; a failure or a cancel removes the
/// staging folder and leaves `to` as it was.
package struct ArchiveExtractor {
    package var from: String
    package var to: String
    package var format: ArchiveFormat?
    package var stripComponents = 0
    package var limits = ExtractionLimits()
    /// Modes exactly as the archive has them (without setuid and setgid), as `tar -p`, which is
    /// tar's default for root; anyone else gets them masked by the umask, as tar does for them.
    package var preservePermissions = geteuid() == 0
    /// Where the digests of the archive and of the files written are noted, for the up-to-date
    /// bookkeeping (`StreamedDigests`).
    package var digests = StreamedDigests.shared

    package init(from: String, to: String, format: ArchiveFormat?, stripComponents: Int, limits: ExtractionLimits) {
        self.from = from
        self.to = to
        self.format = format
        self.stripComponents = stripComponents
        self.limits = limits
    }

    /// `progress(compressed bytes read, archive size)` after each block: the caller throttles it
    /// (`ProgressThrottle`).
    package func run(isCancelled: () -> Bool, progress: (Int64, Int64?) -> Void) throws(ActionFailure) {
        try EmptyArchive.refuse(from, format: format)
        let target = try Self.placement(of: to)
        let parent = target.pathFolder
        try FileTree.makeFolders(parent.isEmpty ? "." : parent)
        let (stagingFolder, staging) = try makeStaging(beside: target)
        defer {
            FileTree.remove(staging)
            stagingFolder.release()
        }
        let written = WrittenFiles(store: digests)
        do throws(ActionFailure) {
            var archiveDigest: (digest: String, identity: FileStatus)?
            var folderEntries: Set<[[UInt8]]> = []
            try withoutActuallyEscaping(isCancelled) { isCancelled throws(ActionFailure) in
                // The session, which holds `isCancelled` (for a pipe), ends inside this closure.
                try ThreadLocale.withUTF8 { () throws(ActionFailure) in
                    let session = try ExtractionSession(
                        archive: from, staging: staging, extractor: self, written: written, isCancelled: isCancelled)
                    try session.extractAll(isCancelled: isCancelled, progress: progress)
                    archiveDigest = session.archiveDigest
                    folderEntries = session.folderEntries
                }
            }
            if isCancelled() { throw .cancelled }
            // As bsdtar: an existing folder takes the archive's mode only where modes are restored (root).
            try StagingPlacement.place(staging, at: target, written: written, folderEntries: preservePermissions ? folderEntries : [])
            if let archiveDigest { digests.note(archiveDigest.digest, for: archiveDigest.identity) }
        } catch {
            written.withdraw()
            throw error
        }
    }

    /// Where the extraction goes: `to`, or, when `to` is a symbolic link, the folder it leads
    /// to, extracted into as `bsdtar -C` extracts into one; the staging folder is then made
    /// beside that folder, so that moving the files into it stays on its file system.
    static func placement(of to: String) throws(ActionFailure) -> String {
        var status = stat()
        guard lstat(to, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return (to as NSString).standardizingPath }
        guard let resolved = realpath(to, nil) else { return try LinkedDestination.resolved(to) }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// A hidden folder beside `to` (a `TemporaryFolder`, locked while this extraction lives, so
    /// that a later run removes it only if this one was killed), so that placing it is a rename
    /// on one file system; the path is resolved, so that libarchive's check for symlinks sees
    /// none above the archive's own.
    private func makeStaging(beside target: String) throws(ActionFailure) -> (TemporaryFolder, String) {
        let parent = target.pathFolder
        let name = target.pathName
        let folder: TemporaryFolder
        do {
            folder = try TemporaryFolder(in: parent.isEmpty ? "." : parent, for: name, access: .shared)
        } catch {
            throw ActionFailure("cannot create a staging folder beside '\(target)': \(FileTree.errorText(error.code))")
        }
        guard let resolved = realpath(folder.path, nil) else { return (folder, folder.path) }
        defer { free(resolved) }
        return (folder, String(cString: resolved))
    }
}
