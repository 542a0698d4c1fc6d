import Foundation
import Glibc

/// One memory mapping of this process, as `/proc/self/smaps` lists it: for tests that check
/// which pages of a file or of the executable stay resident.
package struct MemoryMapping: Sendable {
    /// What is mapped: a file's path, a name such as `[heap]`, or empty for anonymous memory.
    package var path: String
    /// As smaps writes them: `r-xp`, `rw-s`...
    package var permissions: String
    /// The mapping's resident bytes (`Rss:`).
    package var residentBytes: Int

    /// The mappings of this process now, in address order.
    package static func ofThisProcess() throws -> [MemoryMapping] {
        var mappings: [MemoryMapping] = []
        for line in try smaps().split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            let bounds = fields.first?.split(separator: "-") ?? []
            if bounds.count == 2, bounds.allSatisfy({ $0.allSatisfy(\.isHexDigit) }), fields.count >= 5 {
                // A mapping's first line: its range, permissions, offset, device, inode, path.
                mappings.append(MemoryMapping(path: fields[5...].joined(separator: " "), permissions: String(fields[1]), residentBytes: 0))
            } else if fields.first == "Rss:", fields.count >= 2, let kilobytes = Int(fields[1]), !mappings.isEmpty {
                mappings[mappings.count - 1].residentBytes = kilobytes * 1024
            }
        }
        return mappings
    }

    /// `/proc/self/smaps`, read to its end with read(2) (Foundation's readers stop at the first
    /// page of a file whose size says 0, as /proc's do).
    static func smaps() throws -> String {
        let descriptor = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            if count == 0 { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
