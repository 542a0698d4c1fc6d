import Testing

@testable import FlowActions

/// `EntryPath`: how an entry's name becomes a place below `to`, or a refusal.
@Suite struct DecompressEntryPathTests {
    func resolve(_ name: String, strip: Int, zip: Bool) -> EntryPath.Verdict {
        EntryPath.resolve(Array(name.utf8), strip: strip, zip: zip)
    }

    func inside(_ parts: [String]) -> EntryPath.Verdict { .inside(parts.map { Array($0.utf8) }) }

    func staysInside(at parts: [String], target: String) -> Bool {
        EntryPath.symlinkStaysInside(at: parts.map { Array($0.utf8) }, target: Array(target.utf8))
    }

    @Test func namesAreNormalisedAndStripped() {
        #expect(resolve("./app/bin//tool", strip: 0, zip: false) == inside(["app", "bin", "tool"]))
        #expect(resolve("app-1.0/bin/tool", strip: 1, zip: false) == inside(["bin", "tool"]))
        #expect(resolve("app-1.0/", strip: 1, zip: false) == .stripped)
        #expect(resolve("a\\b", strip: 0, zip: false) == inside(["a\\b"]), "a backslash is a name's character in a tar")
    }

    /// GNU tar and bsdtar both count a `.` component toward `--strip-components`: a
    /// `tar -C dir -cf x.tar .` archive (`./top/a`) keeps `top/a` at 1 and gives `a` at 2.
    @Test func aDotComponentCountsTowardStripAsInTar() {
        #expect(resolve("./top/a", strip: 1, zip: false) == inside(["top", "a"]))
        #expect(resolve("./top/b/c", strip: 2, zip: false) == inside(["b", "c"]))
        #expect(resolve("./top/", strip: 2, zip: false) == .stripped)
        #expect(resolve("./", strip: 1, zip: false) == .stripped)
        #expect(resolve("top/./b", strip: 2, zip: false) == inside(["b"]))
        #expect(resolve("./top/../x", strip: 2, zip: false) == .refused("has a '..' component"))
    }

    @Test func namesAreBytesNotText() {
        let latin1: [UInt8] = [0x61, 0xE9, 0x2F, 0x62]  // "aé/b" in latin-1: not UTF-8
        #expect(EntryPath.resolve(latin1, strip: 0, zip: false) == .inside([[0x61, 0xE9], [0x62]]))
        #expect(EntryPath.resolve([0x61, 0xFF], strip: 0, zip: false) != EntryPath.resolve([0x61, 0xFE], strip: 0, zip: false))
    }

    @Test func escapesAreRefused() {
        #expect(resolve("/etc/passwd", strip: 0, zip: false) == .refused("has an absolute path"))
        #expect(resolve("a/../../b", strip: 0, zip: false) == .refused("has a '..' component"))
        #expect(resolve("top/../x", strip: 1, zip: false) == .refused("has a '..' component"), "also where strip would drop it")
        #expect(resolve("..\\..\\evil", strip: 0, zip: true) == inside(["..\\..\\evil"]), "one name: libarchive turns a zip's separators")
        #expect(resolve("C:\\Windows\\x", strip: 0, zip: true) == .refused("has an absolute path"))
        #expect(resolve("é:x", strip: 0, zip: true) == inside(["é:x"]), "a drive letter is ASCII")
    }

    @Test func symlinkTargetsAreReadAgainstTheirFolder() {
        #expect(staysInside(at: ["a", "b", "link"], target: "../c"))
        #expect(staysInside(at: ["a", "link"], target: "../c"))
        #expect(!staysInside(at: ["link"], target: "../c"))
        #expect(!staysInside(at: ["a", "link"], target: "/etc"))
        #expect(!staysInside(at: ["a", "link"], target: "../../x/../a"), "climbing out and back in still leaves")
    }
}
