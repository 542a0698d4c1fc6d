import CArchive
import FlowFiles
import FlowModel
import Glibc

/// `format: tar`, `tar.gz` and `zip`, written by libarchive: each input a regular-file entry
/// named as `CombineInputs` names it (`prefix`, then the path relative to `base` or the
/// workdir), with its mode (less setuid, setgid and sticky), owner ids and modification time,
/// as bsdtar stores them.
enum ArchiveWriter {
    /// In a UTF-8 character type (`ThreadLocale`), as bsdtar runs in one: in flowrun's C locale
    /// libarchive cannot convert a non-ASCII name, and its pax writer then crashed on a null
    /// name while its zip writer stored the bytes without the UTF-8 flag.
    static func write(
        _ inputs: [CombineInputs.Input], total: Int64, format: CombineFormat, to output: CombineOutput,
        stop: StopFlag, progress: ProgressThrottle
    ) throws(ActionFailure) {
        try ThreadLocale.withUTF8 { () throws(ActionFailure) in
            try writeEntries(inputs, total: total, format: format, to: output, stop: stop, progress: progress)
        }
    }

    private static func writeEntries(
        _ inputs: [CombineInputs.Input], total: Int64, format: CombineFormat, to output: CombineOutput,
        stop: StopFlag, progress: ProgressThrottle
    ) throws(ActionFailure) {
        guard let archive = archive_write_new() else { throw ActionFailure("cannot write \(output.destination): out of memory") }
        var finished = false
        defer {
            // Freeing an unfinished archive would first pad the open entry to its full size
            // (gigabytes, gzipped, after a cancel): marked failed, it is only released.
            if !finished { archive_write_fail(archive) }
            archive_write_free(archive)
        }
        // ARCHIVE_WARN is a failure too: an entry libarchive could not store as given (a name
        // it could not convert, a size it cut) is not the file the task promised.
        func check(_ status: Int32, _ doing: @autoclosure () -> String) throws(ActionFailure) {
            if status == ARCHIVE_OK { return }
            var reason = archive_error_string(archive).map { String(cString: $0) } ?? "libarchive error \(status)"
            // libarchive's own words for a failed write(2) are only "Write error": add the
            // kernel's (its other errnos, such as EILSEQ for a format problem, say nothing more).
            let code = archive_errno(archive)
            if [ENOSPC, EDQUOT, EIO, EFBIG, EROFS, EPIPE, EBADF].contains(code) { reason += ": " + String(cString: strerror(code)) }
            throw ActionFailure("cannot write \(output.destination): \(doing()): \(reason)")
        }
        switch format {
        case .zip:
            try check(archive_write_set_format_zip(archive), "zip format")
        case .tarGz:
            try check(archive_write_set_format_pax_restricted(archive), "tar format")
            try check(archive_write_add_filter_gzip(archive), "gzip filter")
        default:
            try check(archive_write_set_format_pax_restricted(archive), "tar format")
        }
        // As archive_write_open_fd does for a regular file: the last block is not padded.
        archive_write_set_bytes_in_last_block(archive, 1)
        // Written through `output`, which hashes the bytes (with libarchive's words and the
        // errno of a failed write, as its own fd writer gives them).
        let opened = archive_write_open2(
            archive, output.opaque, nil,
            { archive, context, bytes, count in
                let code = Unmanaged<CombineOutput>.fromOpaque(context!).takeUnretainedValue()
                    .writeReturningCode(UnsafeRawBufferPointer(start: bytes, count: count))
                guard code == 0 else {
                    if let archive { flowrun_archive_set_error(archive, code, "Write error") }
                    return -1
                }
                return count
            }, nil, nil)
        try check(opened, "open")

        var done: Int64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: InputFile.blockSize, alignment: 16)
        defer { buffer.deallocate() }
        for input in inputs {
            try stop.throwIfStopped()
            let (file, name) = (try InputFile(input.path), input.name)
            guard let entry = archive_entry_new() else { throw ActionFailure("cannot write \(output.destination): out of memory") }
            defer { archive_entry_free(entry) }
            // In the locale's multibyte form (UTF-8 here), as bsdtar sets it: a name set as
            // UTF-8 is normalized to NFC when libarchive converts it, and an NFD name is
            // another file's name.
            archive_entry_copy_pathname(entry, name)
            archive_entry_set_filetype(entry, 0o100000)  // AE_IFREG, a macro Swift does not import
            archive_entry_set_perm(entry, file.status.st_mode & 0o777)
            archive_entry_set_size(entry, la_int64_t(file.size))
            archive_entry_set_uid(entry, la_int64_t(file.status.st_uid))
            archive_entry_set_gid(entry, la_int64_t(file.status.st_gid))
            archive_entry_set_mtime(entry, file.status.st_mtim.tv_sec, file.status.st_mtim.tv_nsec)
            try check(archive_write_header(archive, entry), "entry \(name)")
            var written: Int64 = 0
            try file.readBlocks(into: buffer) { (block) throws(ActionFailure) in
                try stop.throwIfStopped()
                // The header promised `size` bytes: a file that grew since is cut there.
                let count = min(Int64(block.count), file.size - written)
                guard count > 0 else { return }
                let result = archive_write_data(archive, block.baseAddress, Int(count))
                if result < 0 { try check(Int32(result), "entry \(name)") }
                guard result == count else {
                    throw ActionFailure("cannot write \(output.destination): entry \(name): libarchive took \(result) of \(count.counted("byte"))")
                }
                written += count
                done += count
                progress.report(done, total)
            }
            guard written == file.size else {
                throw ActionFailure("input \(file.path) shrank while it was read (\(written) of \(file.size.counted("byte")))")
            }
            try check(archive_write_finish_entry(archive), "entry \(name)")
        }
        try check(archive_write_close(archive), "close")
        finished = true
    }
}
