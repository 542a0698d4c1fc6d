import Testing

@testable import FlowActions

/// `EntryPath`: how an entry's name becomes a place below `to`, or a refusal.
@Suite struct DecompressEntryPathTests {
    @Test func namesAreNormalisedAndStripped() {
        #expect(EntryPath.resolve("./app/bin//tool", strip: 0, zip: false) == .inside(["app", "bin", "tool"]))
        #expect(EntryPath.resolve("app-1.0/bin/tool", strip: 1, zip: false) == .inside(["bin", "tool"]))
        #expect(EntryPath.resolve("app-1.0/", strip: 1, zip: false) == .stripped)
        #expect(EntryPath.resolve("a\\b", strip: 0, zip: false) == .inside(["a\\b"]), "a backslash is a name's character in a tar")
    }

    @Test func escapesAreRefused() {
        #expect(EntryPath.resolve("/etc/passwd", strip: 0, zip: false) == .refused("has an absolute path"))
        #expect(EntryPath.resolve("a/../../b", strip: 0, zip: false) == .refused("has a '..' component"))
        #expect(EntryPath.resolve("top/../x", strip: 1, zip: false) == .refused("has a '..' component"), "also where strip would drop it")
        #expect(EntryPath.resolve("..\\..\\evil", strip: 0, zip: true) == .refused("has a '..' component"))
        #expect(EntryPath.resolve("C:\\Windows\\x", strip: 0, zip: true) == .refused("has an absolute path"))
    }

    @Test func symlinkTargetsAreReadAgainstTheirFolder() {
        #expect(EntryPath.symlinkStaysInside(at: ["a", "b", "link"], target: "../c"))
        #expect(EntryPath.symlinkStaysInside(at: ["a", "link"], target: "../c"))
        #expect(!EntryPath.symlinkStaysInside(at: ["link"], target: "../c"))
        #expect(!EntryPath.symlinkStaysInside(at: ["a", "link"], target: "/etc"))
        #expect(!EntryPath.symlinkStaysInside(at: ["a", "link"], target: "../../x/../a"), "climbing out and back in still leaves")
    }
}
