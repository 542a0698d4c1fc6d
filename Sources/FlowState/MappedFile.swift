import FlowFiles
import Glibc

/// A regular file's bytes, mapped read-only for the time of `withBytes`: read in place from the
/// page cache, where reading it into memory first copied each page (5.6 MB of compiled plan, a
/// page fault each 4 KB, in every run of a 20,000-task workflow: issue 23). The files read so
/// are replaced only whole (`AtomicFile`), never cut short in place under a reader.
enum MappedFile {
    /// `body` over the file's bytes; nil if it cannot be opened or mapped, or is no regular file.
    static func withBytes<Result>(of path: String, _ body: (UnsafeRawBufferPointer) -> Result?) -> Result? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard let status = FileStatus.of(descriptor: descriptor) else { return nil }
        guard status.size > 0 else { return body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        guard let base = mmap(nil, Int(status.size), PROT_READ, MAP_PRIVATE, descriptor, 0), base != MAP_FAILED else { return nil }
        defer { munmap(base, Int(status.size)) }
        return body(UnsafeRawBufferPointer(start: base, count: Int(status.size)))
    }
}
