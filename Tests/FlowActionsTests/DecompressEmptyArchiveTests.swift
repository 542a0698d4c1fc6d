import FlowModel
import Foundation
import Testing

@testable import FlowActions

/// A 0-byte archive (a failed or cut download) fails the task, as it fails GNU tar (exit 2),
/// gzip/xz/bzip2/zstd -t and unzip (exit 9); bsdtar alone extracts nothing and exits 0. The
/// failure names the file, and `to` stays as it was, whether the format is given or detected.
@Suite struct DecompressEmptyArchiveTests {
    static let cases: [(archive: String, format: FlowModel.ArchiveFormat?)] = [
        ("empty.tar", nil), ("empty.tar.gz", nil), ("empty.tgz", nil), ("empty.tar.xz", nil), ("empty.tar.bz2", nil),
        ("empty.tar.zst", nil), ("empty.zip", nil), ("empty.gz", nil), ("empty.xz", nil), ("empty.bz2", nil), ("empty.zst", nil),
        ("empty.tar", .tar), ("empty.tar.gz", .tarGz), ("empty.tgz", .tarGz), ("empty.tar.xz", .tarXz), ("empty.tar.bz2", .tarBz2),
        ("empty.tar.zst", .tarZst), ("empty.zip", .zip), ("empty.gz", .gz),
    ]

    @Test(arguments: cases)
    func aZeroByteArchiveFailsNamingTheFileAndLeavesToAsItWas(archive: String, format: FlowModel.ArchiveFormat?) throws {
        let fixtures = try DecompressFixtures(archives: "open('\(archive)', 'wb').close()")
        defer { fixtures.remove() }
        let failure = try #require(fixtures.extract(archive, format: format))
        let kind = format.map { "a \($0.rawValue) archive" } ?? "an archive"
        #expect(failure.reason == "'\(fixtures.path(archive))' is empty (0 bytes): not \(kind)")
        fixtures.expectOutUntouched()
        // A `to` that did not exist is not made, nor the folder it would be in.
        #expect(fixtures.extract(archive, to: "new/out", format: format) == failure)
        #expect(!FileManager.default.fileExists(atPath: fixtures.path("new")))
    }

    /// From a pipe whose writer closes it without writing, as `cat empty.tar | tar -x` (exit 2).
    @Test func aPipeThatGivesNothingFailsToo() throws {
        let fixtures = try DecompressFixtures(archives: "")
        defer { fixtures.remove() }
        try #require(mkfifo(fixtures.path("pipe"), 0o600) == 0)
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", ": > \"$1\"", "sh", fixtures.path("pipe")]
        try writer.run()
        let failure = fixtures.extract("pipe")
        writer.waitUntilExit()
        #expect(failure?.reason == "'\(fixtures.path("pipe"))' is empty (0 bytes): not an archive")
        fixtures.expectOutUntouched()
    }
}
