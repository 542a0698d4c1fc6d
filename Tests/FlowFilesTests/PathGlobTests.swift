import Foundation
import Testing

@testable import FlowFiles

@Suite struct PathGlobTests {
    @Test func starsQuestionMarksDoubleStarsAndFoldersNameTheirFiles() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("glob-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: base) }
        for path in ["src/a.c", "src/b.c", "src/b.h", "src/.hidden.c", "src/deep/er/c.c", "doc/x.md"] {
            let full = base + "/" + path
            try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data("x".utf8).write(to: URL(fileURLWithPath: full))
        }
        func names(_ pattern: String) -> [String] {
            PathGlob.files(matching: base + "/" + pattern).map { String($0.dropFirst(base.count + 1)) }
        }
        #expect(names("src/*.c") == ["src/a.c", "src/b.c"])
        #expect(names("src/?.h") == ["src/b.h"])
        #expect(names("src/**/*.c") == ["src/a.c", "src/b.c", "src/deep/er/c.c"])
        #expect(names("doc") == ["doc/x.md"])
        #expect(names("src/a.c") == ["src/a.c"])
        #expect(names("missing/*.c").isEmpty && names("missing.c").isEmpty)
    }

    /// Two names that differ only in Unicode normalization are two files: String's == takes
    /// them for one, and a Set of matches kept one of them (combine left the other out, and the
    /// up-to-date check never read it, so an edit to it went unseen).
    @Test func namesThatDifferOnlyInNormalizationAreTwoFiles() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("glob-nfd-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: base + "/in", withIntermediateDirectories: true)
        let composed = "caf\u{E9}.txt"
        let decomposed = "cafe\u{301}.txt"
        for name in [composed, decomposed] { try Data(name.utf8).write(to: URL(fileURLWithPath: base + "/in/" + name)) }

        for pattern in ["in/*", "in/**", "in"] {
            let names = PathGlob.files(matching: base + "/" + pattern).map { Array($0.utf8.dropFirst(base.utf8.count + 4)) }
            #expect(names == [Array(decomposed.utf8), Array(composed.utf8)], "\(pattern)")
        }
    }
}

/// A `**` at the end of a pattern stands for every file under its folder, each met once: the
/// walk took each folder below with the same `**` again, so a file N folders deep was met N + 1
/// times (and stat'ed as often) before the duplicates were dropped: `tree/**` of 70,000 files
/// made 1.2 million stats in one run.
@Suite struct PathGlobTrailingStarsTests {
    @Test func aTrailingDoubleStarMeetsEachFileOnce() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("glob-stars-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: base) }
        let paths = ["src/a.c", "src/.hidden/h.c", "src/one/b.c", "src/one/two/three/c.c"]
        for path in paths {
            let full = base + "/" + path
            try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data("x".utf8).write(to: URL(fileURLWithPath: full))
        }
        let met = try #require(PathGlob.everyMatch(of: base + "/src/**")).map { String($0.dropFirst(base.count + 1)) }
        #expect(met.sorted() == paths.sorted(), "each file once, hidden ones too, as before")
        #expect(PathGlob.files(matching: base + "/src/**").map { String($0.dropFirst(base.count + 1)) } == paths.sorted())
    }
}

/// Symbolic links to folders are followed, but a folder met again below itself is not gone into
/// again (`find -L`): a link to `..` made the walk go 40 links deep (until ELOOP), so every file
/// was named 40 times (and combine read each 40 times), and two such links made it 2^40 steps
/// long: `inputs: [src]` hung the run, deaf to SIGTERM.
@Suite struct PathGlobLoopTests {
    static func folder(links: [String]) throws -> String {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("glob-loop-\(UUID().uuidString)").path
        for path in ["src/a.c", "src/sub/b.c", "elsewhere/e.c"] {
            let full = base + "/" + path
            try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data("x".utf8).write(to: URL(fileURLWithPath: full))
        }
        try FileManager.default.createSymbolicLink(atPath: base + "/src/sub/other", withDestinationPath: "../../elsewhere")
        for link in links { try FileManager.default.createSymbolicLink(atPath: base + "/src/sub/" + link, withDestinationPath: "..") }
        return base
    }

    @Test func aLinkToAFolderAboveIsNotWalkedAgain() throws {
        let base = try Self.folder(links: ["up"])
        defer { try? FileManager.default.removeItem(atPath: base) }
        func names(_ pattern: String) -> [String] {
            PathGlob.files(matching: base + "/" + pattern).map { String($0.dropFirst(base.count + 1)) }
        }
        // A link to a folder elsewhere still stands for what it holds.
        #expect(names("src") == ["src/a.c", "src/sub/b.c", "src/sub/other/e.c"])
        #expect(names("src/**/*.c") == ["src/a.c", "src/sub/b.c", "src/sub/other/e.c"])
        #expect(names("src/**") == ["src/a.c", "src/sub/b.c", "src/sub/other/e.c"])
    }

    @Test func twoLinksToAFolderAboveEndTheWalk() throws {
        let base = try Self.folder(links: ["up", "up2"])
        defer { try? FileManager.default.removeItem(atPath: base) }
        #expect(PathGlob.files(matching: base + "/src").count == 3)
        #expect(PathGlob.files(matching: base + "/src/**/*.c").count == 3)
    }
}
