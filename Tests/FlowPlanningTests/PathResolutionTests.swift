import FlowPlanning
import Testing

@Suite struct PathResolutionTests {
    /// Paths are folded by bytes: what `realpath -m` gives of a path without links, also for a
    /// part that starts with a combining mark (one Character with the `/` before it).
    @Test(arguments: [
        ("/", "/"), ("", "/"), ("//", "/"), ("/a/b", "/a/b"), ("a/b/", "/a/b"), ("/a//b/./c/", "/a/b/c"),
        ("/a/b/../c", "/a/c"), ("/../a", "/a"), ("/a/../..", "/"), ("/a/./../b/..", "/"), ("/a/.../b", "/a/.../b"),
        ("/a/..b/.c/c.", "/a/..b/.c/c."), ("/work/dest/f0", "/work/dest/f0"),
        ("/é/./x/../ü", "/é/ü"), ("/a/é/..", "/a"), ("/日本/../語/.", "/語"),
        ("/w/\u{301}x/../out", "/w/out"), ("/w/\u{301}x/./\u{301}", "/w/\u{301}x/\u{301}"), ("/a/.\u{301}/..", "/a"),
    ])
    func normalizeFoldsDotsAndSlashes(path: String, folded: String) {
        #expect(PathResolution.normalize(path) == folded)
    }

    @Test func relativePathsResolveAgainstTheBase() {
        #expect(PathResolution.resolve("out/../f", against: "/work/x") == "/work/x/f")
        #expect(PathResolution.resolve("/abs/./f", against: "/work/x") == "/abs/f")
        #expect(PathResolution.resolve("../../../f", against: "/w") == "/f")
        // A name that starts with a combining mark: `/` and the mark are one Character.
        #expect(PathResolution.resolve("\u{301}x/../out.txt", against: "/work/x") == "/work/x/out.txt")
        #expect(PathResolution.resolve("/\u{301}x/f", against: "/work/x") == "/\u{301}x/f")
    }
}
