import Foundation
import Testing

/// Archives bsdtar 3.6 extracts with exit status 0 and flowrun refuses (README, "Where flowrun
/// is stricter than bsdtar"): a compressed tar cut in its last bytes, or with junk after it
/// but for bzip2 (bsdtar stops reading at the tar's end marker, before the stream's end), a zip whose end
/// record is cut or counts more entries than there are (bsdtar reads it as a stream), and a
/// zip whose local header names another file than its directory (bsdtar extracts the local
/// name), or another method; a 0-byte file. The task fails naming itself and the archive or the entry, and nothing is at `to`.
@Suite struct StricterThanBsdtarTests {
    /// A tar of one file, with 64 KiB of zeros after its end marker (as a tar written with a
    /// large blocking factor has), compressed four ways; each cut in its last 4 bytes
    /// (`cut.*`) and with junk after it (`junk.*`). Zips of three files: `end-cut.zip` with
    /// its end record's last 10 bytes gone, `count-more.zip` whose end record counts 4,
    /// `local-name.zip` whose second local header says `x.txt` where the directory says `b.txt`,
    /// `local-method.zip` whose second local header says stored where the directory says
    /// deflated (bsdtar fails this one too, but leaves a 26-byte `b.txt` behind).
    static let archives = """
        import gzip, lzma, bz2, io, os, struct, subprocess, sys, tarfile, zipfile
        os.chdir(sys.argv[1])
        data = bytes(range(256)) * 400
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode='w') as t:
            i = tarfile.TarInfo('big.bin'); i.size = len(data); t.addfile(i, io.BytesIO(data))
        tar = buf.getvalue() + bytes(65536)
        open('t.tar', 'wb').write(tar)
        subprocess.run(['zstd', '-q', '--check', 't.tar', '-o', 't.tar.zst'], check=True)
        streams = {'gz': gzip.compress(tar), 'xz': lzma.compress(tar), 'bz2': bz2.compress(tar),
                   'zst': open('t.tar.zst', 'rb').read()}
        for ext, blob in streams.items():
            open('cut.tar.' + ext, 'wb').write(blob[:-4])
            open('junk.tar.' + ext, 'wb').write(blob + b'JUNKJUNKJUNK')
        with zipfile.ZipFile('ok.zip', 'w', zipfile.ZIP_DEFLATED) as z:
            for n in ('a.txt', 'b.txt', 'c.txt'): z.writestr(n, (n * 500).encode())
        z = open('ok.zip', 'rb').read()
        open('end-cut.zip', 'wb').write(z[:-10])
        end = z.rfind(b'PK\\x05\\x06')
        m = bytearray(z); struct.pack_into('<HH', m, end + 8, 4, 4)
        open('count-more.zip', 'wb').write(m)
        m = bytearray(z); at = 0
        while m[at + 30:at + 35] != b'b.txt': at = m.find(b'PK\\x03\\x04', at + 4)
        m[at + 30:at + 35] = b'x.txt'
        open('local-name.zip', 'wb').write(m)
        struct.pack_into('<H', m, at + 8, 0)  # and stored, where the directory says deflated
        m[at + 30:at + 35] = b'b.txt'
        open('local-method.zip', 'wb').write(m)
        open('empty.tar.gz', 'wb').close()  # a failed download
        """

    static let refusals: [(archive: String, names: String)] = [
        ("cut.tar.gz", "cut.tar.gz"), ("cut.tar.xz", "cut.tar.xz"), ("cut.tar.bz2", "cut.tar.bz2"), ("cut.tar.zst", "cut.tar.zst"),
        ("junk.tar.gz", "junk.tar.gz"), ("junk.tar.xz", "junk.tar.xz"), ("junk.tar.zst", "junk.tar.zst"), ("end-cut.zip", "end-cut.zip"),
        ("count-more.zip", "count-more.zip"),
        ("local-name.zip", "b.txt"), ("local-method.zip", "b.txt"), ("empty.tar.gz", "empty.tar.gz' is empty (0 bytes)"),
    ]

    @Test(arguments: refusals)
    func anArchiveBsdtarExtractsFailsNamingTheTaskAndTheEntryAndLeavesNothingAtTo(archive: String, names: String) async throws {
        let folder = try TemporaryFolder()
        try await Self.python(Self.archives, in: folder.url)
        try Data("version: 1\ntasks:\n  unpack: {decompress: {from: \(archive), to: out}}\n".utf8)
            .write(to: folder.url.appendingPathComponent("flow.yaml"))

        let result = try await FlowrunBinary.run(["run", "--events", "jsonl", "flow.yaml"], in: folder.url)

        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let failed = try #require(try EventStream(result.stdout).named("task.failed").first, "\(result.stdout)")
        #expect(failed.task == "unpack")
        let reason = try #require(failed["reason"] as? String)
        #expect(reason.contains(names), "\(reason)")
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("out").path), "\(reason)")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(!left.contains { $0.hasPrefix(".out") || $0.contains("staging") }, "\(left)")
    }

    /// Junk after a bzip2 stream is not a stream: libarchive ends there, as `bzip2 -d` does
    /// (exit 0, with a warning), and the tar before it is whole.
    @Test func junkAfterABzip2StreamIsIgnoredAsBzip2IgnoresIt() async throws {
        let folder = try TemporaryFolder()
        try await Self.python(Self.archives, in: folder.url)
        try Data("version: 1\ntasks:\n  unpack: {decompress: {from: junk.tar.bz2, to: out}}\n".utf8)
            .write(to: folder.url.appendingPathComponent("flow.yaml"))

        let result = try await FlowrunBinary.run(["run", "--events", "jsonl", "flow.yaml"], in: folder.url)

        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let extracted = try Data(contentsOf: folder.url.appendingPathComponent("out/big.bin"))
        #expect(extracted == Data((0..<400).flatMap { _ in (0...255).map { UInt8($0) } }))
    }

    /// Runs `python3 -c script folder`.
    static func python(_ script: String, in folder: URL) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, folder.path]
        try process.run()
        try await offThePool { process.waitUntilExit() }
        try #require(process.terminationStatus == 0)
    }
}
