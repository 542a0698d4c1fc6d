import FlowTestServer
import Foundation
import Glibc
import Testing

@testable import FlowActions

/// The download cache is filled by a hard link to the verified download, not a second copy of
/// its bytes; a `to` edited in place afterwards spoils the shared blob, which the next task
/// using it finds, deletes and downloads again.
@Suite struct DownloadCacheLinkTests {
    typealias Runner = DownloadRunnerTests

    static func status(_ path: String) -> stat? {
        var status = stat()
        return stat(path, &status) == 0 ? status : nil
    }

    @Test func aVerifiedDownloadIsLinkedIntoTheCacheNotCopied() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        let body = Runner.bytes(300_000)
        let digest = Runner.sha256(body)
        server.route("/blob") { _ in .init(body: body) }
        let runner = Runner.runner(in: folder, ["FLOWRUN_CACHE_DIR": folder + "/cache"])
        defer { runner.finishRun() }
        let tasks = try Runner.tasks([("get", "{download: {url: '\(server.baseURL)/blob', to: out/b.bin, sha256: \(digest)}}")], in: folder)
        #expect(await Runner.run(tasks[0], runner: runner).result == .succeeded)
        let placed = try #require(Self.status(folder + "/out/b.bin"))
        let blob = try #require(Self.status(folder + "/cache/sha256/" + digest))
        #expect(placed.st_ino == blob.st_ino && placed.st_dev == blob.st_dev, "one file, not two copies")
        #expect(placed.st_nlink == 2)
        #expect(Runner.folderContents(folder + "/out") == ["b.bin"], "no temporary file left")
        #expect(Runner.folderContents(folder + "/cache/sha256") == [digest])
    }

    /// A task that appends to `to` in place changes the blob too (one file): the next download
    /// of that sha256 finds the blob no longer matches its name, deletes it, fetches the file
    /// again, and stores the good bytes once more.
    @Test func aToEditedInPlaceSpoilsTheBlobWhichIsFetchedAgain() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        let body = Runner.bytes(200_000)
        let digest = Runner.sha256(body)
        server.route("/blob") { _ in .init(body: body) }
        let environment = ["FLOWRUN_CACHE_DIR": folder + "/cache"]
        let tasks = try Runner.tasks(
            [
                ("first", "{download: {url: '\(server.baseURL)/blob', to: first.bin, sha256: \(digest)}}"),
                ("second", "{download: {url: '\(server.baseURL)/blob', to: second.bin, sha256: \(digest)}}"),
            ], in: folder)
        let first = Runner.runner(in: folder, environment)
        #expect(await Runner.run(tasks[0], runner: first).result == .succeeded)
        first.finishRun()
        let edit = try FileHandle(forWritingTo: URL(fileURLWithPath: folder + "/first.bin"))
        try edit.seekToEnd()
        try edit.write(contentsOf: Data("edited\n".utf8))
        try edit.close()
        let second = Runner.runner(in: folder, environment)
        defer { second.finishRun() }
        #expect(await Runner.run(tasks[1], runner: second).result == .succeeded)
        #expect(Runner.contents(folder + "/second.bin") == body)
        #expect(server.requestCount("/blob") == 2, "the spoiled blob was not used")
        #expect(Runner.contents(folder + "/cache/sha256/" + digest) == body, "the blob holds the good bytes again")
        #expect(Runner.contents(folder + "/first.bin") == body + Array("edited\n".utf8), "the edited file is left alone")
    }

    /// A cache on another file system (tmpfs) cannot take a link: the bytes are copied there.
    @Test(.enabled(if: Self.otherFileSystem() != nil))
    func aCacheOnAnotherFileSystemGetsACopy() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cache = try #require(Self.otherFileSystem()) + "/flowrun-cache-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        let body = Runner.bytes(150_000)
        let digest = Runner.sha256(body)
        server.route("/blob") { _ in .init(body: body) }
        let runner = Runner.runner(in: folder, ["FLOWRUN_CACHE_DIR": cache])
        defer { runner.finishRun() }
        let tasks = try Runner.tasks([("get", "{download: {url: '\(server.baseURL)/blob', to: b.bin, sha256: \(digest)}}")], in: folder)
        #expect(await Runner.run(tasks[0], runner: runner).result == .succeeded)
        #expect(Runner.contents(folder + "/b.bin") == body)
        #expect(Runner.contents(cache + "/sha256/" + digest) == body)
        #expect(Self.status(folder + "/b.bin")?.st_nlink == 1)
        #expect(Runner.folderContents(cache + "/sha256") == [digest], "no temporary file left")
    }

    /// /dev/shm when it is on another file system than the test folders.
    static func otherFileSystem() -> String? {
        guard let shm = status("/dev/shm"), let temporary = status(NSTemporaryDirectory()), shm.st_dev != temporary.st_dev,
            access("/dev/shm", W_OK) == 0
        else { return nil }
        return "/dev/shm"
    }
}
