import CLinux
import FlowTestSupport
import Foundation
import Testing

/// `flowrun_release_code_pages` (`run` calls it once the plan is read): the executable's code
/// leaves the process's resident memory, and runs again from the file.
@Suite struct CodePagesTests {
    /// The resident bytes of the executable's mappings that are not writable (`/proc/self/smaps`).
    static func residentCode() throws -> Int {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        return try MemoryMapping.ofThisProcess().filter { $0.path == executable && !$0.permissions.contains("w") }.map(\.residentBytes)
            .reduce(0, +)
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
