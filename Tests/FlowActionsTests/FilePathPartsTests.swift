import Foundation
import Testing

@testable import FlowActions

/// A download's `to` split into its folder and name as `URL(fileURLWithPath:)` splits it, the
/// plain absolute paths without `URL` (`FilePathParts`).
@Suite struct FilePathPartsTests {
    @Test(arguments: [
        "/out/f.bin", "/f", "/a/b/c d.tar.gz", "/a/.hidden", "/a/b/..", "/a/b/.", "/a/b/", "rel/f", "f", "/a//b/c", "/a/\u{301}x", "/caf\u{E9}/f\u{301}",
    ])
    func aPathSplitsAsURLSplitsIt(_ path: String) {
        let url = URL(fileURLWithPath: path)
        let (folder, name) = FilePathParts.split(path)
        #expect(name == url.lastPathComponent)
        // The same folder, whichever way its name is spelled.
        #expect(URL(fileURLWithPath: folder).standardizedFileURL.path == url.deletingLastPathComponent().standardizedFileURL.path)
    }

    @Test func aPlainAbsolutePathIsSplitAtItsLastSlash() {
        #expect(FilePathParts.split("/out/sub/f.bin") == ("/out/sub", "f.bin"))
        #expect(FilePathParts.split("/f.bin") == ("/", "f.bin"))
    }
}
