import CLinux
import Foundation
import Testing

/// `flowrun_release_code_pages` (`run` calls it once the plan is read): the executable's code
/// leaves the process's resident memory, and runs again from the file.
@Suite struct CodePagesTests {
    /// The resident bytes of the executable's mappings that are not writable (`/proc/self/smaps`).
    static func residentCode() throws -> Int {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var inCode = false
        var total = 0
        for line in try smaps().split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            let bounds = fields.first?.split(separator: "-") ?? []
            if bounds.count == 2, bounds.allSatisfy({ $0.allSatisfy(\.isHexDigit) }) {
                // A mapping's first line: its range, permissions, offset, device, inode, path.
                inCode = fields.count >= 6 && fields[5] == executable && !fields[1].contains("w")
            } else if inCode, fields.first == "Rss:", fields.count >= 2, let kilobytes = Int(fields[1]) {
                total += kilobytes * 1024
            }
        }
        return total
    }

    /// `/proc/self/smaps`, read to its end (Foundation's readers stop at the first page of a
    /// file whose size says 0, as /proc's do).
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

    @Test func theExecutablesCodeLeavesMemoryAndRunsAgain() throws {
        let before = try Self.residentCode()
        #expect(before > 0)
        let released = flowrun_release_code_pages()
        #expect(released > 0)
        // What is resident now is what ran since (this test, and any other running at the same
        // moment): far less than the code every test before it had run.
        let after = try Self.residentCode()
        #expect(after < before, "\(after) bytes resident after, \(before) before")
        // The code comes back from the file, the same bytes.
        let words = (1...3).map { "word\($0)" }.joined(separator: " ")
        #expect(words == "word1 word2 word3")
        #expect(try Self.residentCode() > 0)
    }
}
