import FlowModel
import Foundation
import Testing

@testable import FlowActions

/// Archives made by the tests with Python's tarfile, zipfile and gzip, in a temporary folder.
struct DecompressFixtures {
    let folder: String

    init() throws {
        folder = NSTemporaryDirectory() + "flowrun-decompress-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    func remove() {
        FileTree.remove(folder)
    }

    /// Runs `script` with python3 in the folder; `sys.argv[1]` is the folder too.
    func python(_ script: String) throws {
        try run(["python3", "-c", "import os, sys, io, tarfile, zipfile, gzip, struct\nos.chdir(sys.argv[1])\n" + script, folder])
    }

    /// `many.tar`: 400 empty files `f000`..`f399` of mode 0666, whose extracted modes show the
    /// umask the extraction ran under.
    func makeTarOfEmptyFiles() throws {
        try python(
            """
            with tarfile.open('many.tar', 'w') as t:
                for i in range(400):
                    info = tarfile.TarInfo('f%03d' % i); info.mode = 0o666; t.addfile(info, io.BytesIO(b''))
            """)
    }

    func run(_ argv: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = Array(UmaskedChild.argv(["/usr/bin/env"] + argv).dropFirst())
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(argv.prefix(2)) failed")
    }

    func path(_ name: String) -> String { folder + "/" + name }

    func text(_ name: String) -> String? { try? String(contentsOfFile: path(name), encoding: .utf8) }

    /// The names in a folder of the fixture, sorted.
    func listing(_ name: String = "") -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path(name))) ?? []).sorted()
    }

    /// Extracts `archive` into `to`; the failure's message, or nil on success.
    @discardableResult
    func extract(
        _ archive: String, to: String = "out", format: FlowModel.ArchiveFormat? = nil, strip: Int = 0,
        limits: ExtractionLimits = ExtractionLimits(), isCancelled: () -> Bool = { false }
    ) -> ActionFailure? {
        let extractor = ArchiveExtractor(from: path(archive), to: path(to), format: format, stripComponents: strip, limits: limits)
        do {
            try extractor.run(isCancelled: isCancelled, progress: { _, _ in })
            return nil
        } catch {
            return error
        }
    }

    /// The names in a folder of the fixture as bytes, sorted: names need not be UTF-8.
    func byteListing(_ name: String) -> [[UInt8]] {
        ((try? FileTree.children(BytePath(path(name)))) ?? []).sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// Nothing but `expected` in the folder: no staging folder left behind.
    func expectOnly(_ expected: [String], sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        #expect(listing() == expected.sorted(), sourceLocation: sourceLocation)
    }
}

extension DecompressFixtures {
    /// Fixtures with the archives `script` (Python, run by `python(_:)`) makes, and a folder
    /// `out` that holds `keep.txt` already: a failed extraction into it must leave it so
    /// (`expectOutUntouched`).
    init(archives script: String) throws {
        try self.init()
        try python(script)
        try FileManager.default.createDirectory(atPath: path("out"), withIntermediateDirectories: true)
        try "keep".write(toFile: path("out/keep.txt"), atomically: false, encoding: .utf8)
    }

    /// `out` holds what it held before (`keep.txt`), and no staging folder is left beside it.
    func expectOutUntouched(sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        #expect(listing("out") == ["keep.txt"], sourceLocation: sourceLocation)
        #expect(!listing().contains { $0.contains("flowrun-") }, sourceLocation: sourceLocation)
    }

    /// The extracted file `name` has the bytes of the file `source` (both in the fixture).
    func expectSameBytes(_ name: String, as source: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let written = FileManager.default.contents(atPath: path(name))
        #expect(written != nil && written == FileManager.default.contents(atPath: path(source)), "\(name)", sourceLocation: sourceLocation)
    }

    /// A ustar archive at `path` of one entry, `big.bin`, of `entryBytes` bytes that do not
    /// repeat, written here: no process is spawned, so the test's thread is not held waiting.
    static func tar(at path: String, entryBytes: Int) throws {
        var header = [UInt8](repeating: 0, count: 512)
        func put(_ text: String, at offset: Int) { header.replaceSubrange(offset..<offset + text.utf8.count, with: text.utf8) }
        put("big.bin", at: 0)
        put("0000644\0", at: 100)
        put("0000000\0", at: 108)
        put("0000000\0", at: 116)
        put(String(format: "%011o\0", entryBytes), at: 124)
        put("00000000000\0", at: 136)
        put("        ", at: 148)  // the checksum counts its own field as spaces
        put("0", at: 156)
        put("ustar\0" + "00", at: 257)
        put(String(format: "%06o\0 ", header.reduce(0) { $0 + Int($1) }), at: 148)
        var generator = SystemRandomNumberGenerator()
        let body = (0..<entryBytes).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let padding = (512 - entryBytes % 512) % 512
        let bytes = header + body + [UInt8](repeating: 0, count: padding + 1024)
        try #require(FileManager.default.createFile(atPath: path, contents: Data(bytes)), "cannot write \(path)")
    }
}
