import CArchive
import FlowFiles
import FlowModel
import Foundation

/// One pass over an archive: its entries (`ArchiveInput`), a disk writer rooted in the staging folder,
/// and the counts the ceilings watch.
final class ExtractionSession {
    private let writer: OpaquePointer
    private let stagingPath: BytePath
    private let archivePath: String
    private let archiveSize: Int64?
    private let extractor: ArchiveExtractor
    private var entries = 0
    /// Headers read, for naming an entry that has no name.
    private var headers = 0
    private var bytesWritten: Int64 = 0
    /// Links to check on the finished tree (`SymlinkContainment`).
    private var links: [[[UInt8]]] = []
    private let isRegularFile: Bool
    /// The archive's status when it is a regular file: a single compressed file takes its mode
    /// and times (`takeArchiveModeAndTimes`).
    private let archiveStatus: stat?
    /// The disk writer's options, for a single compressed file with its mode restored.
    private let options: Int32
    private let input: ArchiveInput
    /// Hashes the files written, and notes their digests as each was finished.
    private let hashing: FileHashing
    /// The paths (below the staging folder) of the archive's folder entries: a merge gives an
    /// existing folder of `to` the mode of the archive's entry for it (`StagingPlacement`).
    private(set) var folderEntries: Set<[[UInt8]]> = []
    /// The archive's digest and identity once it was read whole and had not changed meanwhile.
    private(set) var archiveDigest: (digest: String, identity: FileStatus)?

    init(
        archive: String, staging: String, extractor: ArchiveExtractor, written: WrittenFiles, isCancelled: @escaping () -> Bool
    ) throws(ActionFailure) {
        let gunzip = extractor.format == .gz
        input = try ArchiveInput(
            path: archive,
            formats: { reader in
                if gunzip {
                    archive_read_support_format_raw(reader)  // gunzip: a .tar.gz given as gz yields its .tar
                    archive_read_support_format_empty(reader)  // a gzip of nothing, which raw does not claim
                } else {
                    ExtractionSession.supportFormats(reader)
                }
            }, isCancelled: isCancelled)
        guard let writer = DiskWriter.make() else { throw ActionFailure("out of memory") }
        self.writer = writer
        hashing = FileHashing(written: written)
        self.stagingPath = BytePath(staging)
        self.archivePath = archive
        self.extractor = extractor
        var info = stat()
        isRegularFile = stat(archive, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
        archiveStatus = isRegularFile ? info : nil
        archiveSize = isRegularFile ? Int64(info.st_size) : nil
        // Owners never restored (`tar --no-same-owner`); absolute paths are refused before
        // libarchive sees them (staging paths are absolute), so NOABSOLUTEPATHS is not set.
        // SECURE_SYMLINKS is not set either: it opens every folder of the (absolute, long) path
        // for each entry, a fifth of the time of a tar.gz of 900 files; `refuseWriteThroughSymlink`
        // checks the same below the staging folder, whose own path is resolved.
        // Modes as tar restores them: whole for root, masked by the umask for anyone else.
        options =
            (extractor.preservePermissions ? ARCHIVE_EXTRACT_PERM : 0) | ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_SECURE_NODOTDOT
            | ARCHIVE_EXTRACT_UNLINK
        archive_write_disk_set_options(writer, options)
    }

    /// Every format libarchive reads but mtree, a text format that claims any text file (a
    /// gzipped README would extract as empty files named after its words) and can name host
    /// files as contents; raw last, for a single compressed file.
    private static func supportFormats(_ reader: OpaquePointer) {
        archive_read_support_format_7zip(reader)
        archive_read_support_format_ar(reader)
        archive_read_support_format_cab(reader)
        archive_read_support_format_cpio(reader)
        archive_read_support_format_empty(reader)
        archive_read_support_format_iso9660(reader)
        archive_read_support_format_lha(reader)
        archive_read_support_format_rar(reader)
        archive_read_support_format_rar5(reader)
        archive_read_support_format_tar(reader)
        archive_read_support_format_warc(reader)
        archive_read_support_format_xar(reader)
        archive_read_support_format_zip(reader)
        archive_read_support_format_raw(reader)
    }

    deinit {
        hashing.finish()
        archive_write_free(writer)
    }

    func extractAll(isCancelled: () -> Bool, progress: (Int64, Int64?) -> Void) throws(ActionFailure) {
        var detected: DetectedFormat?
        reading: while true {
            if isCancelled() { throw .cancelled }
            let entry: OpaquePointer
            let warning: String?
            switch input.nextHeader(isCancelled: isCancelled) {
            case .end: break reading
            case .failed(let message):
                if isCancelled() { throw .cancelled }
                throw ActionFailure("cannot read '\(archivePath)': \(input.decodingFailure ?? message)")
            case .entry(let next, let said): (entry, warning) = (next, said)
            }
            headers += 1
            if detected == nil {
                let found = input.detectedFormat
                try check(found)
                detected = found
            }
            try extract(entry, detected!, warning: warning, isCancelled: isCancelled, progress: progress)
        }
        if detected == nil {
            // A pipe that gave nothing (an empty regular file was refused before it was opened).
            if !isRegularFile && input.compressedBytes == 0 { throw EmptyArchive.failure(archivePath, format: extractor.format) }
            // No entry: an empty tar (or tar.gz) is still checked against the format given.
            let found = input.detectedFormat
            if extractor.format != nil { try check(found) }
            if found.isEmptyCompressedFile, extractor.format == nil || extractor.format == .gz { try writeEmptyFile() }
        }
        if let failure = input.finishDecoding(isCancelled: isCancelled) {
            throw ActionFailure("cannot read '\(archivePath)': \(failure)")
        }
        if isCancelled() { throw .cancelled }
        // Read to its end: the whole archive (a zip's central directory, read first, sits
        // after the place where the reader ends).
        progress(archiveSize ?? input.compressedBytes, archiveSize)
        guard archive_write_close(writer) == ARCHIVE_OK else {
            throw ActionFailure("cannot finish writing: \(Self.writeError(writer))")
        }
        for link in links where !SymlinkContainment.staysInside(root: stagingPath, link: link) {
            throw .entry(BytePath.shown(Array(link.joined(separator: [UInt8(ascii: "/")]))), "is a symlink that leads out of the destination")
        }
        hashing.finish()
        archiveDigest = input.digest()
    }

    private func check(_ found: DetectedFormat) throws(ActionFailure) {
        if let expected = extractor.format {
            guard found.matches(expected) else {
                throw ActionFailure("'\(archivePath)' is \(found.description), not \(expected.rawValue) as 'format' says")
            }
        } else if found.isSingleFile && found.filters.isEmpty {
            throw ActionFailure("'\(archivePath)' is not an archive flowrun can read")
        }
        // A zip from a pipe is read as a stream: there is no central directory to check it against.
        // The read thread waits for the checked directory (or none) after a zip's first header.
        if found.isZip { input.useZipDirectory(isRegularFile ? try ZipHeaderCheck.check(archivePath) : nil) }
    }

    private func extract(
        _ entry: OpaquePointer, _ detected: DetectedFormat, warning: String?, isCancelled: () -> Bool, progress: (Int64, Int64?) -> Void
    ) throws(ActionFailure) {
        let name = try entryName(entry, detected, warning: warning)
        let shown = BytePath.shown(name)
        let strip = detected.isSingleFile ? 0 : extractor.stripComponents
        let components: [[UInt8]]
        switch EntryPath.resolve(name, strip: strip, zip: detected.isZip) {
        case .refused(let why): throw .entry(shown, why)
        case .stripped: return
        case .inside(let parts): components = parts
        }
        if components.isEmpty {
            // The archive's root folder is the staging folder itself. A file, link or hard link
            // named `.` would have to replace it (bsdtar and GNU tar fail on it): never skipped.
            guard archive_entry_filetype(entry) & S_IFMT == S_IFDIR, archive_entry_hardlink(entry) == nil else {
                throw .entry(shown, "is not a folder, but names the destination folder itself")
            }
            return
        }
        entries += 1
        if entries > extractor.limits.maxFiles {
            throw ActionFailure("'\(archivePath)' has more than \(extractor.limits.maxFiles.counted("entry", plural: "entries")) (max_files)")
        }
        // A hard link has no type of its own in a tar (libarchive gives 0): it is checked by its target.
        let type = archive_entry_filetype(entry) & S_IFMT
        if let hardlink = BytePath.bytes(archive_entry_hardlink(entry)) {
            let target = BytePath.shown(hardlink)
            switch EntryPath.resolve(hardlink, strip: strip, zip: detected.isZip) {
            case .refused(let why): throw .entry(shown, "is a hard link whose target '\(target)' \(why)")
            case .stripped, .inside([]): return  // as bsdtar: a link to a stripped entry is skipped
            case .inside(let parts):
                let targetPath = stagingPath.appending(parts)
                try refuseWriteThroughSymlink(parts, name: shown)
                // A second name of a symlink is a symlink too: its target is checked at the end.
                if let info = FileTree.status(targetPath), info.st_mode & S_IFMT == S_IFLNK { links.append(components) }
                targetPath.withCString { archive_entry_set_hardlink(entry, $0) }
            }
        } else if ![S_IFREG, S_IFDIR, S_IFLNK].contains(type) {
            throw .entry(shown, "is a device, FIFO or socket, which flowrun does not create")
        }
        if type == S_IFLNK {
            let target = BytePath.bytes(archive_entry_symlink(entry)) ?? []
            guard EntryPath.symlinkStaysInside(at: components, target: target) else {
                throw .entry(shown, "is a symlink to '\(BytePath.shown(target))', which leads out of the destination")
            }
            links.append(components)
        }
        // A folder entry over a symlink would have its mode and times set through the link.
        try refuseWriteThroughSymlink(type == S_IFDIR ? components + [[]] : components, name: shown)
        stagingPath.appending(components).withCString { archive_entry_set_pathname(entry, $0) }
        archive_entry_set_perm(entry, archive_entry_perm(entry) & 0o1777)  // no setuid, no setgid
        if detected.isSingleFile { takeArchiveModeAndTimes(entry, wholeSeconds: detected.filters.contains(ARCHIVE_FILTER_BZIP2)) }
        // The writer's warnings are failures: a write that hit a full disk is one (ENOSPC).
        guard DiskWriter.writeHeader(writer, entry) == ARCHIVE_OK else {
            throw .entry(shown, "cannot be written: \(Self.writeError(writer))")
        }
        // A regular file's bytes are hashed as they are written; a hard link's are its target's.
        let hashed = type == S_IFREG && archive_entry_hardlink(entry) == nil
        if EntryReadAhead.hasData(entry) { try copyData(of: shown, hashed: hashed, isCancelled: isCancelled, progress: progress) }
        guard archive_write_finish_entry(writer) == ARCHIVE_OK else {
            throw .entry(shown, "cannot be written: \(Self.writeError(writer))")
        }
        if hashed { hashing.end(FileTree.status(stagingPath.appending(components))) }
        if type == S_IFDIR { folderEntries.insert(components) }
    }

    /// A single compressed file that holds nothing: an empty file, as gunzip gives.
    private func writeEmptyFile() throws(ActionFailure) {
        let name = SingleFileName.of(archive: archivePath, isRegularFile: isRegularFile)
        guard let entry = archive_entry_new() else { throw ActionFailure("out of memory") }
        defer { archive_entry_free(entry) }
        stagingPath.appending([name]).withCString { archive_entry_set_pathname(entry, $0) }
        archive_entry_set_filetype(entry, S_IFREG as mode_t)
        archive_entry_set_perm(entry, 0o644)
        archive_entry_set_size(entry, 0)
        takeArchiveModeAndTimes(entry)
        guard DiskWriter.writeHeader(writer, entry) == ARCHIVE_OK, archive_write_finish_entry(writer) == ARCHIVE_OK else {
            throw .entry(BytePath.shown(name), "cannot be written: \(Self.writeError(writer))")
        }
    }

    /// A single compressed file gets the compressed file's mode and times, as gunzip, `xz -d`,
    /// `bzip2 -d` and `zstd -d` give them (whatever the umask; `bzip2 -d` sets whole seconds
    /// only: `wholeSeconds`); from a pipe, the writer's defaults and now, as `gunzip < FILE >
    /// OUT` gives.
    private func takeArchiveModeAndTimes(_ entry: OpaquePointer, wholeSeconds: Bool = false) {
        guard let info = archiveStatus else { return }
        archive_entry_set_perm(entry, info.st_mode & 0o777)
        archive_entry_set_mtime(entry, info.st_mtim.tv_sec, wholeSeconds ? 0 : info.st_mtim.tv_nsec)
        archive_entry_set_atime(entry, info.st_atim.tv_sec, wholeSeconds ? 0 : info.st_atim.tv_nsec)
        archive_write_disk_set_options(writer, options | ARCHIVE_EXTRACT_PERM)
    }

    /// The entry's name as the archive's bytes. No name is never the root folder: libarchive gives
    /// none when it cannot convert it, and bsdtar refuses an empty one too.
    private func entryName(_ entry: OpaquePointer, _ detected: DetectedFormat, warning: String?) throws(ActionFailure) -> [UInt8] {
        if detected.isSingleFile { return SingleFileName.of(archive: archivePath, isRegularFile: isRegularFile) }
        guard let name = BytePath.bytes(archive_entry_pathname(entry)) else {
            throw ActionFailure("'\(archivePath)' has an entry whose name cannot be read (entry \(headers)): \(warning ?? "unknown error")")
        }
        guard !name.isEmpty else { throw ActionFailure("'\(archivePath)' has an entry with an empty name (entry \(headers))") }
        return name
    }

    /// A folder of the path that is a symlink already extracted: writing through it could land
    /// anywhere, so it is refused (as libarchive's SECURE_SYMLINKS would, without naming the entry).
    private func refuseWriteThroughSymlink(_ components: [[UInt8]], name: String) throws(ActionFailure) {
        var path = stagingPath
        for part in components.dropLast() {
            path = path.appending([part])
            guard let info = FileTree.status(path) else { return }
            if info.st_mode & S_IFMT == S_IFLNK { throw .entry(name, "would be written through the symlink '\(BytePath.shown(part))'") }
        }
    }

    private func copyData(
        of name: String, hashed: Bool, isCancelled: () -> Bool, progress: (Int64, Int64?) -> Void
    ) throws(ActionFailure) {
        let limits = extractor.limits
        while true {
            let buffer: UnsafeRawPointer?
            let size: Int
            let offset: Int64
            switch input.nextBlock(isCancelled: isCancelled) {
            case .end: return
            case .failed(let message):
                if isCancelled() { throw .cancelled }
                if let failure = input.decodingFailure { throw ActionFailure("cannot read '\(archivePath)': \(failure)") }
                throw .entry(name, "cannot be read: \(message)")
            case .data(let block, let count, let at): (buffer, size, offset) = (block, count, at)
            }
            try write(buffer, count: size, at: offset, of: name, hashed: hashed)
            bytesWritten += Int64(size)
            let compressed = input.compressedBytes
            if bytesWritten > Int64(limits.maxBytes) {
                throw ActionFailure("extracting '\(archivePath)' would write more than \(limits.maxBytes.counted("byte")) (max_bytes), at entry '\(name)'")
            }
            if bytesWritten > Int64(limits.ratioGrace), bytesWritten / max(compressed, 1) > Int64(limits.maxRatio) {
                throw ActionFailure(
                    "'\(archivePath)' expands more than \(limits.maxRatio.counted("time")) (max_ratio): \(bytesWritten.counted("byte")) from \(compressed), at entry '\(name)'"
                )
            }
            if isCancelled() { throw .cancelled }
            progress(compressed, archiveSize)
        }
    }

    /// Writes a data block and hands it to the hashing a piece (`FileHashing.bufferSize`) at a
    /// time: a zip entry inflated whole comes as one block of up to 4 MiB, and the hashing's
    /// copy of a piece then reads it while the write has just brought it into the cache. An
    /// empty block is still written (a sparse file's end).
    private func write(_ block: UnsafeRawPointer?, count: Int, at offset: Int64, of name: String, hashed: Bool) throws(ActionFailure) {
        var done = 0
        repeat {
            let piece = min(FileHashing.bufferSize, count - done)
            let start = block.map { $0 + done }
            guard archive_write_data_block(writer, start, piece, offset + Int64(done)) == ARCHIVE_OK else {
                throw .entry(name, "cannot be written: \(Self.writeError(writer))")
            }
            if hashed { hashing.add(start, count: piece, at: offset + Int64(done)) }
            done += piece
        } while done < count
    }

    private static func message(_ archive: OpaquePointer) -> String {
        archive_error_string(archive).map { String(cString: $0) } ?? "unknown error"
    }

    /// libarchive's message with the system's reason: "Write failed" alone does not say the disk is full.
    private static func writeError(_ writer: OpaquePointer) -> String {
        let code = archive_errno(writer)
        let text = message(writer)
        guard code > 0 else { return text }
        let reason = FileTree.errorText(code)
        return text.contains(reason) ? text : "\(text): \(reason)"
    }
}
