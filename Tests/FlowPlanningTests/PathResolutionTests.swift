import FlowPlanning
import Testing

@Suite struct PathResolutionTests {
    /// ASCII paths are folded by bytes and others by characters: both give what `realpath -m`
    /// gives of a path without links.
    @Test(arguments: [
        ("/", "/"), ("", "/"), ("//", "/"), ("/a/b", "/a/b"), ("a/b/", "/a/b"), ("/a//b/./c/", "/a/b/c"),
        ("/a/b/../c", "/a/c"), ("/../a", "/a"), ("/a/../..", "/"), ("/a/./../b/..", "/"), ("/a/.../b", "/a/.../b"),
        ("/a/..b/.c/c.", "/a/..b/.c/c."), ("/work/dest/f0", "/work/dest/f0"),
        ("/é/./x/../ü", "/é/ü"), ("/a/é/..", "/a"), ("/日本/../語/.", "/語"),
    ])
    func normalizeFoldsDotsAndSlashes(path: String, folded: String) {
        #expect(PathResolution.normalize(path) == folded)
    }

    @Test func relativePathsResolveAgainstTheBase() {
        #expect(PathResolution.resolve("out/../f", against: "/work/x") == "/work/x/f")
        #expect(PathResolution.resolve("/abs/./f", against: "/work/x") == "/abs/f")
        #expect(PathResolution.resolve("../../../f", against: "/w") == "/f")
    }
}
