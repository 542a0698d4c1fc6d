import Foundation
import Testing

/// A download from a `file:` URL copies a local file: that file is its input, as `cp`'s source
/// is a make rule's prerequisite, so an edit to it makes the download run again.
@Suite struct FileURLSourceTests {
    static let workflow = """
        version: 1
        tasks:
          get: {download: {url: 'file://${FLOWRUN_WORKFLOW_DIR}/my%20src.txt', to: out/got.txt}}
          use: {needs: get, inputs: [out/got.txt], outputs: [out/up.txt], shell: 'tr a-z A-Z < out/got.txt > out/up.txt'}

        """

    @Test func anEditedSourceFileIsDownloadedAgain() async throws {
        let project = try UpToDateTests.Project(Self.workflow, files: ["my src.txt": "one\n"])
        #expect(try await project.run().ran == ["get", "use"])
        #expect(try await project.run().upToDate == ["get", "use"])
        try project.write("my src.txt", "two, longer\n")
        let rerun = try await project.run()
        #expect(rerun.ran == ["get", "use"])
        #expect(try project.read("out/got.txt") == "two, longer\n")
        #expect(try project.read("out/up.txt") == "TWO, LONGER\n")
        #expect(try await project.run().upToDate == ["get", "use"])
    }

    /// A `file:` URL naming a FIFO no one writes to: the copy opened it blocking, so the task
    /// hung until its timeout (or forever without one), where curl fails at once. It fails at
    /// once, naming the path, and nothing is written at `to`. (The timeout only bounds the old
    /// hang: the assertion is on the reason.)
    @Test func aFIFOIsRefusedAtOnceNotWaitedOn() async throws {
        let project = try UpToDateTests.Project(
            """
            version: 1
            tasks:
              get: {timeout: 60s, download: {url: 'file://${FLOWRUN_WORKFLOW_DIR}/pipe', to: out/got.txt}}

            """, files: [:])
        try project.shell("mkfifo pipe")
        let result = try await FlowrunBinary.run(["run", "--events", "jsonl", "flow.yaml"], in: project.url)
        #expect(result.status == 1)
        let failed = try EventStream(result.stdout).named("task.failed")
        let reason = failed.first?["reason"] as? String ?? ""
        #expect(failed.count == 1 && reason.hasPrefix("cannot read /") && reason.hasSuffix("/pipe: not a regular file"), "\(reason)")
        #expect(!FileManager.default.fileExists(atPath: project.url.path + "/out/got.txt"))
    }

    /// A `file:` URL naming a folder: the download fails, naming the path, and writes nothing
    /// (curl 7.88 writes an empty file and exits 0). The folder is not walked as an input first
    /// (`FileURLSourceWalkTests`): `file:///` walked the whole file system before failing.
    @Test func aFolderIsRefusedNotCopied() async throws {
        let project = try UpToDateTests.Project(
            """
            version: 1
            tasks:
              get: {download: {url: 'file://${FLOWRUN_WORKFLOW_DIR}/src', to: out/got.txt}}

            """, files: ["src/a.txt": "a\n", "src/b/c.txt": "c\n"])
        let result = try await FlowrunBinary.run(["run", "--events", "jsonl", "flow.yaml"], in: project.url)
        #expect(result.status == 1)
        let failed = try EventStream(result.stdout).named("task.failed")
        let reason = failed.first?["reason"] as? String ?? ""
        #expect(failed.count == 1 && failed.first?["task"] as? String == "get", "\(failed)")
        #expect(reason.hasPrefix("cannot read /") && reason.hasSuffix("/src: not a regular file"), "\(reason)")
        #expect(!FileManager.default.fileExists(atPath: project.url.path + "/out/got.txt"))
    }
}
