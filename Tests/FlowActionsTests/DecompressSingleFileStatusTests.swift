import Foundation
import Glibc
import Testing

@testable import FlowActions

/// A single compressed file comes out with the compressed file's mode and modification time, as
/// `gunzip -k`, `xz -dk`, `bzip2 -dk` and `zstd -d` give them: it was written with the time of
/// the extraction and the writer's 0644.
@Suite struct DecompressSingleFileStatusTests {
    /// (the compressed file, the command that makes it from `data`, the one that decompresses it
    /// beside it, the name both write).
    static let tools = [
        ("data.gz", "gzip -k -n data", "gunzip -k data.gz", "data"),
        ("data.xz", "xz -k data", "xz -dk data.xz", "data"),
        ("data.bz2", "bzip2 -k data", "bzip2 -dk data.bz2", "data"),
        ("data.zst", "zstd -q data", "zstd -dq data.zst", "data"),
        ("empty.gz", "gzip -n < /dev/null > empty.gz", "gunzip -k empty.gz", "empty"),
    ]

    @Test(arguments: tools)
    func theFileTakesTheCompressedFilesModeAndTimeAsTheToolGivesThem(archive: String, make: String, reference: String, name: String) throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.run(["sh", "-c", "printf 'hello\\n' > data && \(make) && rm data && chmod 646 \(archive)"])
        // An old time, with nanoseconds, that no extraction could be mistaken for.
        var times = [timespec(tv_sec: 1_577_934_245, tv_nsec: 123_456_789), timespec(tv_sec: 1_577_934_245, tv_nsec: 123_456_789)]
        #expect(utimensat(AT_FDCWD, fixtures.path(archive), &times, 0) == 0)
        #expect(fixtures.extract(archive, to: "out") == nil)
        try fixtures.run(["sh", "-c", reference])
        let extracted = try #require(Self.status(fixtures.path("out/" + name)))
        let tool = try #require(Self.status(fixtures.path(name)))
        #expect(extracted.st_mode & 0o7777 == tool.st_mode & 0o7777, "mode \(String(extracted.st_mode & 0o7777, radix: 8))")
        #expect(extracted.st_mode & 0o7777 == 0o646)
        #expect(extracted.st_mtim.tv_sec == tool.st_mtim.tv_sec && extracted.st_mtim.tv_nsec == tool.st_mtim.tv_nsec)
        // bzip2 sets whole seconds only (utime(2)); the others keep the nanoseconds.
        #expect(extracted.st_mtim.tv_sec == 1_577_934_245 && extracted.st_mtim.tv_nsec == (archive.hasSuffix(".bz2") ? 0 : 123_456_789))
    }

    static func status(_ path: String) -> stat? {
        var info = stat()
        return lstat(path, &info) == 0 ? info : nil
    }
}
