import FlowModel
import Foundation
import Testing

@testable import FlowActions

/// A single compressed file read from a FIFO is read once, by the extraction's own reader: the
/// name in its gzip header was read by opening the path a second time, which waited for a
/// writer that had gone (the run hung, out of a Ctrl-C's reach) or took the bytes the
/// extraction was to read. From a pipe the file is named after the path, as from a .gz
/// without a stored name.
@Suite struct DecompressFromFIFOTests {
    @Test func aSingleGzipFromAFIFOWhoseWriterHasGoneIsExtracted() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try #require(mkfifo(fixtures.path("stream.gz"), 0o600) == 0)
        // Writes a .gz naming `report.txt` and closes. A second open of the FIFO then waits for
        // a writer: after 60 s (a hang guard that makes the test fail rather than hang) the
        // writer gives it one and leaves `stream.gz.gave-up`.
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        writer.arguments = [
            "python3", "-c",
            """
            import gzip, os, sys, time
            path = sys.argv[1]
            with open(path, 'wb') as f:
                with gzip.GzipFile(filename='report.txt', mode='wb', fileobj=f, mtime=0) as z: z.write(b'hello\\n')
            for _ in range(600):  # ends with the test's folder
                if not os.path.exists(path): sys.exit()
                time.sleep(0.1)
            open(path + '.gave-up', 'w').close()
            try: os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
            except OSError: pass
            """, fixtures.path("stream.gz"),
        ]
        try writer.run()
        defer { if writer.isRunning { writer.terminate() } }
        let failure = fixtures.extract("stream.gz", to: "out")
        #expect(failure == nil, "\(String(describing: failure))")
        #expect(fixtures.listing("out") == ["stream"])
        #expect(try String(contentsOfFile: fixtures.path("out/stream"), encoding: .utf8) == "hello\n")
        fixtures.expectOnly(["out", "stream.gz"])  // no stream.gz.gave-up: nothing waited for a writer
    }

    /// A plain tar cut inside its last header, read from a FIFO, was green with the entries
    /// after the cut missing (session 35's check needed a regular file's size); bsdtar says
    /// "Truncated tar archive". The bytes the pipe gave to its end are now the tar's length.
    @Test func aTarCutInsideAHeaderFromAFIFOFails() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(
            """
            with tarfile.open('whole.tar', 'w', format=tarfile.USTAR_FORMAT) as t:
                for n in ['a', 'b', 'c']:
                    info = tarfile.TarInfo(n); info.size = 2; t.addfile(info, io.BytesIO(b'x\\n'))
            whole = open('whole.tar', 'rb').read()
            open('cut.tar', 'wb').write(whole[:whole.index(b'c\\0') // 512 * 512 + 100])
            """)
        try #require(mkfifo(fixtures.path("stream.tar"), 0o600) == 0)
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", "cat \"$1\" > \"$2\"", "sh", fixtures.path("cut.tar"), fixtures.path("stream.tar")]
        try writer.run()
        defer { if writer.isRunning { writer.terminate() } }
        let failure = fixtures.extract("stream.tar", to: "out")
        #expect(failure?.reason.contains("Truncated tar archive") == true, "\(failure?.reason ?? "extracted")")
        #expect(!FileManager.default.fileExists(atPath: fixtures.path("out")))
    }
}
