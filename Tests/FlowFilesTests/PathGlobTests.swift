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
}
