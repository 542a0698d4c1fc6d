import Foundation
import Glibc

/// One input of a combine task, open for reading: a regular file, read in blocks so that
/// memory stays the same whatever its size.
final class InputFile {
    /// Bytes read per call: large enough that system calls cost little.
    static let blockSize = 1 << 20

    let path: String
    let status: stat
    private let descriptor: Int32

    init(_ path: String) throws(ActionFailure) {
        self.path = path
        // O_NONBLOCK: opening a FIFO would otherwise wait for a writer, out of reach of cancel.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw ActionFailure("cannot open input \(path): \(String(cString: strerror(errno)))") }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            let failure = ActionFailure("cannot read input \(path): \(String(cString: strerror(errno)))")
            close(fd)
            throw failure
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw ActionFailure("input \(path) is not a regular file")
        }
        descriptor = fd
        self.status = status
    }

    deinit { close(descriptor) }

    /// The size of the regular file at `path`, without opening it.
    static func size(of path: String) throws(ActionFailure) -> Int64 {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw ActionFailure("cannot open input \(path): \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & S_IFMT == S_IFREG else { throw ActionFailure("input \(path) is not a regular file") }
        return Int64(status.st_size)
    }

    var size: Int64 { Int64(status.st_size) }

    /// Calls `body` with each block read, in order, until the end of the file. `buffer` is
    /// reused from one file to the next.
    func readBlocks(
        into buffer: UnsafeMutableRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws(ActionFailure) -> Void
    ) throws(ActionFailure) {
        while true {
            let count = read(descriptor, buffer.baseAddress!, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw ActionFailure("cannot read input \(path): \(String(cString: strerror(errno)))") }
            if count == 0 { return }
            try body(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
    }
}
