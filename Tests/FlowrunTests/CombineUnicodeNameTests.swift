import Foundation
import Testing

/// `combine` into an archive stores a non-ASCII file name as UTF-8, as bsdtar does in a UTF-8
/// locale. flowrun never calls `setlocale`, so it runs in the C locale, where libarchive cannot
/// convert such a name: its pax writer then crashed flowrun (a null name), and its zip writer
/// stored the bytes without the UTF-8 flag.
@Suite struct CombineUnicodeNameTests {
    static let name = "caf\u{E9}.txt"

    func combine(format: String) async throws -> (WorkflowFolder, String) {
        let project = try WorkflowFolder(
            """
            version: 1
            tasks:
              pack: {combine: {inputs: ["in/*"], to: out.\(format), format: \(format)}}
            """, files: ["in/\(Self.name)": "bonjour\n"])
        let result = try await FlowrunBinary.run(["run", "--events", "plain", "flow.yaml"], in: project.url)
        #expect(result.status == 0, "\(format): \(result.stdout)\(result.stderr.prefix(300))")
        return (project, project.url.appendingPathComponent("out.\(format)").path)
    }

    /// The names bsdtar lists, in a UTF-8 locale.
    func listing(_ path: String) async throws -> String {
        let listing = Process()
        listing.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        listing.arguments = ["LC_ALL=C.UTF-8", "bsdtar", "-tf", path]
        let pipe = Pipe()
        listing.standardOutput = pipe
        try listing.run()
        return try await offThePool {
            defer { listing.waitUntilExit() }
            return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }
    }

    @Test(arguments: ["tar", "tar.gz"])
    func aTarStoresTheNameAsWritten(format: String) async throws {
        let (project, archive) = try await combine(format: format)
        #expect(try await listing(archive) == "in/\(Self.name)\n")
        withExtendedLifetime(project) {}
    }

    @Test func aZipFlagsTheNameAsUTF8() async throws {
        let (project, archive) = try await combine(format: "zip")
        defer { withExtendedLifetime(project) {} }
        let bytes = try #require(FileManager.default.contents(atPath: archive).map(Array.init))
        // The local file header: signature PK\3\4, version, then the flags; bit 11 is UTF-8.
        try #require(bytes.count > 8 && bytes.prefix(4).elementsEqual([0x50, 0x4B, 3, 4]))
        #expect(bytes[7] & 0x08 != 0, "the name is stored without the UTF-8 flag")
        #expect(try await listing(archive) == "in/\(Self.name)\n")
    }

    /// NFC and NFD are two file names: each entry keeps the bytes of its own, as bsdtar writes
    /// them (libarchive normalizes a name to NFC when it converts one given as UTF-8).
    @Test(arguments: ["tar", "zip"])
    func namesThatDifferOnlyInNormalizationAreStoredAsTheyAre(format: String) async throws {
        let decomposed = "cafe\u{301}.txt"
        let project = try WorkflowFolder(
            """
            version: 1
            tasks:
              pack: {combine: {inputs: ["in/*"], to: out.\(format), format: \(format)}}
            """, files: ["in/\(Self.name)": "composed\n"])
        try project.write("in/\(decomposed)", "decomposed\n")
        let result = try await FlowrunBinary.run(["run", "--events", "plain", "flow.yaml"], in: project.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr.prefix(300))")
        let bytes = try #require(FileManager.default.contents(atPath: project.url.appendingPathComponent("out.\(format)").path))
        for name in [Self.name, decomposed] {
            #expect(bytes.range(of: Data("in/\(name)".utf8)) != nil, "no entry named by the bytes of \(Array(name.utf8))")
        }
    }
}
