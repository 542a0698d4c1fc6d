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

    func run(_ argv: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = argv
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
    /// A tar at `path` of one entry, `big.bin`, of `entryBytes` bytes that do not compress.
    static func tar(at path: String, entryBytes: Int) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            """
            import io, os, sys, tarfile
            with tarfile.open(sys.argv[1], 'w') as t:
                data = os.urandom(int(sys.argv[2]))
                info = tarfile.TarInfo('big.bin'); info.size = len(data)
                t.addfile(info, io.BytesIO(data))
            """, path, String(entryBytes),
        ]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "python3 could not write \(path)")
    }
}
