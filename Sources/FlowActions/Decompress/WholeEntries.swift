import CArchive
import Foundation

/// Which of a zip's entries the read thread inflates itself (`WholeEntryInflater`): it follows
/// libarchive through the `ZipDirectory`, entry by entry in libarchive's order. An entry is
/// inflated here only if libarchive's header for it is a regular file of the size the
/// directory gives, of the name it lists, read from where the directory has it (or before: a
/// skipped entry's data descriptor); once a file is not, libarchive reads every entry left,
/// as it would without this. Folders and symlinks are libarchive's.
struct WholeEntries {
    private let directory: ZipDirectory
    private var index = 0
    private var followed = true

    init(directory: ZipDirectory) {
        self.directory = directory
    }

    /// The directory's entry for libarchive's next header `entry`, read at `position`, if its
    /// data is to be inflated here.
    mutating func next(for entry: OpaquePointer, at position: Int64) -> ZipDirectory.Entry? {
        guard followed, index < directory.entries.count else {
            followed = false
            return nil
        }
        let listed = directory.entries[index]
        index += 1
        let size = archive_entry_size_is_set(entry) != 0 ? archive_entry_size(entry) : -1
        let isFile = archive_entry_filetype(entry) & S_IFMT == S_IFREG && archive_entry_hardlink(entry) == nil
        // Of another name: an entry the directory does not list (libarchive reading the zip as
        // a stream, from its local headers), or listed otherwise; libarchive's from here on.
        let name = archive_entry_pathname(entry).map { UnsafeRawBufferPointer(start: $0, count: strlen($0)) }
        guard position <= listed.headerOffset, ZipDirectory.nameCRC(name ?? UnsafeRawBufferPointer(start: nil, count: 0)) == listed.nameCRC else {
            followed = false
            return nil
        }
        // A folder or a symlink (whose target libarchive has read already) is libarchive's.
        guard listed.isWhole, isFile else { return nil }
        guard size == Int64(listed.size) else {
            followed = false
            return nil
        }
        return listed
    }
}
