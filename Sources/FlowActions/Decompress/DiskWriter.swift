import CArchive
import Foundation

/// libarchive's disk writer, whose umask reads are taken one at a time.
///
/// `archive_write_disk_new` and every `archive_write_header` of a disk writer read the umask by
/// setting it to 0 and back, and mask the modes they write with what they read (without
/// `ARCHIVE_EXTRACT_PERM`, as tar without `-p`). Two extractions at once (two tasks, or two
/// tests) read the 0 the other had just set, and wrote files world-writable (seen: 666 and 777
/// where bsdtar wrote 644 and 755). No other code of flowrun sets the umask, so under one lock
/// each read sees the real one.
enum DiskWriter {
    private static let lock = NSLock()

    static func make() -> OpaquePointer? {
        lock.lock()
        defer { lock.unlock() }
        return archive_write_disk_new()
    }

    static func writeHeader(_ writer: OpaquePointer, _ entry: OpaquePointer) -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        return archive_write_header(writer, entry)
    }
}
