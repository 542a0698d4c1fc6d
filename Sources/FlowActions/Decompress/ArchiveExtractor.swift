import CArchive
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

    package init(from: String, to: String, format: ArchiveFormat?, stripComponents: Int, limits: ExtractionLimits) {
        self.from = from
        self.to = to
        self.format = format
        self.stripComponents = stripComponents
        self.limits = limits
    }

    /// `progress(compressed bytes read, archive size)`, at most ten times a second.
    package func run(isCancelled: () -> Bool, progress: (Int64, Int64?) -> Void) throws(ExtractionFailure) {
        let target = (to as NSString).standardizingPath
        let parent = (target as NSString).deletingLastPathComponent
        try FileTree.makeFolders(parent.isEmpty ? "." : parent)
        let staging = try makeStaging(beside: target)
        defer { FileTree.remove(staging) }
        try withoutActuallyEscaping(isCancelled) { isCancelled throws(ExtractionFailure) in
            // The session, which holds `isCancelled` (for a pipe), ends inside this closure.
            try ThreadLocale.withUTF8 { () throws(ExtractionFailure) in
                let session = try ExtractionSession(archive: from, staging: staging, extractor: self, isCancelled: isCancelled)
                try session.extractAll(isCancelled: isCancelled, progress: progress)
            }
        }
        if isCancelled() { throw .stopped }
        try StagingPlacement.place(staging, at: target)
    }

    /// A hidden folder beside `to`, so that placing it is a rename on one file system; the path
    /// is resolved, so that libarchive's check for symlinks sees none above the archive's own.
    private func makeStaging(beside target: String) throws(ExtractionFailure) -> String {
        let parent = (target as NSString).deletingLastPathComponent
        let name = (target as NSString).lastPathComponent
        var template = Array(((parent.isEmpty ? "." : parent) + "/.\(name).flowrun-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw ExtractionFailure("cannot create a staging folder beside '\(target)': \(FileTree.errorText())")
        }
        chmod(made, 0o777 & ~Self.umaskValue)
        guard let resolved = realpath(made, nil) else { return String(cString: made) }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Read, not set: `umask(0)` to learn it would race with files other tasks create meanwhile.
    private static let umaskValue: mode_t = {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("Umask:") }
        let digits = line?.split(separator: "\t").last.map { $0.trimmingCharacters(in: .whitespaces) }
        return digits.flatMap { mode_t($0, radix: 8) } ?? 0o022
    }()
}
