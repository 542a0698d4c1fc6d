import Foundation
import Glibc
import Testing

/// A `to` that is a symbolic link is written through, as `curl -o`, `wget -O` and `cp` write
/// through one, and still whole or not at all: the temporary file (or the staging folder) goes
/// beside the link's target and is renamed over it. The link stays.
@Suite struct LinkedDestinationTests {
    /// The names in `path` that are flowrun's temporary files or folders (`.NAME.flowrun-RANDOM`).
    func leftovers(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.contains(".flowrun-") }
    }

    /// The download replaced the link with a regular file: `shared/data.txt` kept its old bytes.
    @Test func aDownloadWritesThroughALinkAndKeepsIt() async throws {
        let folder = try WorkflowFolder(
            """
            version: 1
            tasks:
              get: {download: {url: "file://${FLOWRUN_WORKFLOW_DIR}/source.txt", to: out/data.txt}}
              cat: {combine: {inputs: [src/a.txt, src/b.txt], to: out/both.txt}}

            """, files: ["source.txt": "fresh\n", "shared/data.txt": "old\n", "shared/both.txt": "old\n", "src/a.txt": "a\n", "src/b.txt": "b\n"])
        for name in ["data.txt", "both.txt"] {
            try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("out"), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: folder.url.appendingPathComponent("out/" + name).path, withDestinationPath: "../shared/" + name)
        }
        let result = try await FlowrunBinary.run(["run", "--events", "plain", "flow.yaml"], in: folder.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        for name in ["data.txt", "both.txt"] {
            let link = folder.url.appendingPathComponent("out/" + name).path
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == "../shared/" + name, "out/\(name) is no longer the link")
        }
        #expect(try folder.read("shared/data.txt") == "fresh\n")
        #expect(try folder.read("shared/both.txt") == "a\nb\n")
        #expect(leftovers(folder.url.appendingPathComponent("out").path) == [])
        #expect(leftovers(folder.url.appendingPathComponent("shared").path) == [])
    }

    /// `to` a link to a folder on another file system (/dev/shm, a tmpfs, where it is one): the
    /// archive is merged into the folder the link names, as `bsdtar -C` extracts into it. The
    /// staging folder was made beside the link, so moving its files into the target crossed file
    /// systems, and the task failed (EXDEV).
    @Test func anExtractionIntoALinkedFolderStagesBesideTheTarget() async throws {
        let folder = try WorkflowFolder(
            """
            version: 1
            tasks:
              unpack: {decompress: {from: app.tar, to: out/tree}}

            """)
        let target = URL(fileURLWithPath: "/dev/shm").appendingPathComponent("flowrun-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: target) }
        try Data("kept\n".utf8).write(to: target.appendingPathComponent("old.txt"))
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("out"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.url.appendingPathComponent("out/tree").path, withDestinationPath: target.path)
        try folder.write("content/new.txt", "new\n")
        let tar = Process()
        tar.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        tar.arguments = ["tar", "-cf", "app.tar", "-C", "content", "new.txt"]
        tar.currentDirectoryURL = folder.url
        try tar.run()
        try await offThePool { tar.waitUntilExit() }
        try #require(tar.terminationStatus == 0)
        let result = try await FlowrunBinary.run(["run", "--events", "plain", "flow.yaml"], in: folder.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let link = folder.url.appendingPathComponent("out/tree").path
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == target.path, "out/tree is no longer the link")
        #expect((try? String(contentsOf: target.appendingPathComponent("new.txt"), encoding: .utf8)) == "new\n")
        #expect((try? String(contentsOf: target.appendingPathComponent("old.txt"), encoding: .utf8)) == "kept\n")
        #expect(leftovers(folder.url.appendingPathComponent("out").path) == [])
        #expect(leftovers(target.deletingLastPathComponent().path).filter { $0.hasPrefix("." + target.lastPathComponent) } == [])
    }

    /// `to: /dev/null` (or a FIFO, or a link to either) was replaced by the renamed temporary
    /// file: as root, /dev/null became a regular file for every program after. A device, FIFO
    /// or socket at `to` now fails the task naming `to`, and stays what it was.
    @Test func aDeviceOrFIFOAtToIsNeverReplaced() async throws {
        let folder = try WorkflowFolder(
            """
            version: 1
            tasks:
              get: {download: {url: "file://${FLOWRUN_WORKFLOW_DIR}/source.txt", to: out/fifo}}
              cat: {combine: {inputs: [source.txt], to: out/link}}
              dev: {combine: {inputs: [source.txt], to: out/null}}

            """, files: ["source.txt": "data\n"])
        let out = folder.url.appendingPathComponent("out").path
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try #require(mkfifo(out + "/fifo", 0o644) == 0)
        try FileManager.default.createSymbolicLink(atPath: out + "/link", withDestinationPath: "fifo")
        // A character device only root can make (as CI runs); otherwise a second FIFO stands in.
        let device = mknod(out + "/null", S_IFCHR | 0o666, dev_t(0x103)) == 0  // 1, 3: /dev/null's numbers
        if !device { try #require(mkfifo(out + "/null", 0o644) == 0) }
        let result = try await FlowrunBinary.run(["run", "--events", "plain", "--keep-going", "flow.yaml"], in: folder.url)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("[get] failed in") && result.stdout.contains("'\(out)/fifo' is a FIFO"), "\(result.stdout)")
        #expect(result.stdout.contains("[cat] failed in") && result.stdout.contains("'\(out)/link' is a FIFO"), "\(result.stdout)")
        #expect(result.stdout.contains("[dev] failed in"), "\(result.stdout)")
        var status = stat()
        #expect(lstat(out + "/fifo", &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "out/fifo is no longer a FIFO")
        #expect(lstat(out + "/link", &status) == 0 && status.st_mode & S_IFMT == S_IFLNK, "out/link is no longer the link")
        #expect(lstat(out + "/null", &status) == 0 && status.st_mode & S_IFMT == (device ? S_IFCHR : S_IFIFO), "out/null was replaced")
        #expect(leftovers(out) == [])
    }
}
