import Foundation
import Testing

@testable import FlowFiles

/// Paths read by bytes, as the kernel reads them: to String, a `/` and a combining mark after it
/// (U+0301) are one Character, which is no `/`.
@Suite struct PathsByBytesTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("paths-by-bytes-\(UUID().uuidString)").path

    func make(_ path: String) throws {
        let full = base + "/" + path
        try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: full))
    }

    /// `in/\u{301}x*/a.txt` was split into `in/\u{301}x*` and `a.txt`, and matched nothing.
    @Test func aGlobsFolderStartingWithACombiningMarkMatches() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try make("in/\u{301}x1/a.txt")
        #expect(PathGlob.files(matching: base + "/in/\u{301}x*/a.txt") == [base + "/in/\u{301}x1/a.txt"])
        #expect(PathGlob.files(matching: base + "/in/\u{301}x*/*.txt") == [base + "/in/\u{301}x1/a.txt"])
    }

    /// `new/\u{301}x.txt` was the name `new/\u{301}x.txt` in the folder above, and `new/` was
    /// never made: the write failed with "No such file or directory".
    @Test func anAtomicWriteMakesAFolderBeforeANameStartingWithACombiningMark() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        #expect(AtomicFile.split(base + "/new/\u{301}x.txt") == (base + "/new", "\u{301}x.txt"))
        try AtomicFile.write("whole\n", to: base + "/new/\u{301}x.txt", access: .shared)
        #expect(try String(contentsOfFile: base + "/new/\u{301}x.txt", encoding: .utf8) == "whole\n")
    }

    /// A relative target is read from the link's folder, also for a link whose name starts
    /// with a combining mark (NSString took `d/\u{301}link` for a name with no folder).
    @Test func aRelativeTargetOfALinkNamedWithACombiningMarkIsReadFromItsFolder() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try make("d/data.txt")
        try FileManager.default.createSymbolicLink(atPath: base + "/d/\u{301}link", withDestinationPath: "data.txt")
        #expect(LinkTarget.end(of: base + "/d/\u{301}link") == base + "/d/data.txt")
    }

    /// A link to `/\u{301}x/data.txt` leads there, not to `\u{301}x/data.txt` beside the link.
    @Test func aLinkToAnAbsoluteTargetStartingWithACombiningMarkLeadsThere() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try make("\u{301}x/data.txt")
        try FileManager.default.createSymbolicLink(atPath: base + "/link", withDestinationPath: "/\u{301}x/data.txt")
        #expect(LinkTarget.end(of: base + "/link") == "/\u{301}x/data.txt")
    }
}
