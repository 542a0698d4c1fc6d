import Foundation
import Glibc

/// Reads a record file line by line in chunks, so that memory stays bounded however long the
/// record is.
///
/// A last line without its newline is a write cut short (a SIGKILL, a power cut): it is not
/// handed out, and `cutShort` says so. A line longer than `longestLine` cannot be ours and is
/// skipped whole, counted in `skippedLongLines`.
package final class RecordLineReader {
    package static let chunkSize = 64 << 10
    package static let longestLine = 16 << 20

    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false
    private var skippingLongLine = false
    package private(set) var cutShort = false
    /// The start of the line that was cut short, if one was.
    package private(set) var cutShortStart: [UInt8] = []
    package private(set) var skippedLongLines = 0

    package init(path: String) throws(RecordProblem) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The next whole line without its newline, or nil at the end.
    package func nextLine() -> ArraySlice<UInt8>? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                let line = buffer[start..<newline]
                start = newline + 1
                if skippingLongLine {
                    skippingLongLine = false
                    continue
                }
                return line
            }
            if atEnd {
                if start < buffer.count, !skippingLongLine {
                    cutShort = true
                    cutShortStart = Array(buffer[start...].prefix(64))
                }
                buffer.removeAll()
                start = 0
                return nil
            }
            if buffer.count - start > Self.longestLine {
                if !skippingLongLine { skippedLongLines += 1 }
                skippingLongLine = true
                buffer.removeAll(keepingCapacity: true)
                start = 0
            }
            fill()
        }
    }

    private func fill() {
        if start > 0 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        let old = buffer.count
        buffer += repeatElement(0, count: Self.chunkSize)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + old, Self.chunkSize) }
        if count <= 0 {
            if count < 0, errno == EINTR {
                buffer.removeSubrange(old...)
                return
            }
            atEnd = true
            buffer.removeSubrange(old...)
        } else {
            buffer.removeSubrange((old + count)...)
        }
    }
}
