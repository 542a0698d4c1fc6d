import FlowFiles
import FlowTestServer
import Foundation
import Testing

@testable import FlowActions

/// A download hands the XXH3-128 it computed while the bytes went by to the up-to-date
/// bookkeeping (`StreamedDigests`), for the file as it lies at `to`, whichever way the bytes
/// came, so that the file is not read back to hash it again.
@Suite struct DownloadDigestTests {
    /// The digest noted for the file at `path` as it is now, taken.
    static func noted(_ path: String) -> String? {
        guard let identity = FileStatus.of(path: path) else { return nil }
        return StreamedDigests.shared.take(identity)?.digest
    }

    @Test func aTransferNotesTheDigestOfTheFileAtTo() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        // Many parts, past the write-behind bound, so that hashing and writing run behind.
        let body = DownloadRunnerTests.bytes(3 * HTTPTransfer.writeBehindLimit + 12_345)
        server.route("/file") { _ in .init(body: body) }
        let runner = DownloadRunnerTests.runner(in: folder)
        defer { runner.finishRun() }
        let tasks = try DownloadRunnerTests.tasks([("get", "{download: {url: '\(server.baseURL)/file', to: out/file.bin}}")], in: folder)
        let attempt = await DownloadRunnerTests.run(tasks[0], runner: runner)
        #expect(attempt.result == .succeeded)
        #expect(DownloadRunnerTests.contents(folder + "/out/file.bin") == body)
        #expect(Self.noted(folder + "/out/file.bin") == DownloadRunnerTests.xxh128(body))
    }

    /// The digest of a resumed download covers the bytes kept from the attempt before, not
    /// only those of the last response.
    @Test func aResumedTransferNotesTheDigestOfTheWholeFile() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        let body = DownloadRunnerTests.bytes(400_000)
        let served = LockedBox(0)
        server.route("/big") { _ in
            served.update { $0 += 1 }
            var response = TestHTTPServer.Response(headers: [("ETag", "\"v1\"")], body: body)
            response.servesRanges = true
            if served.value == 1 { response.stallAfter = 150_000 }
            return response
        }
        let runner = DownloadRunnerTests.runner(in: folder, readTimeout: DownloadRunnerTests.stallReadTimeout)
        defer { runner.finishRun() }
        // No sha256 to check against: only the noted digest tells what was hashed.
        let tasks = try DownloadRunnerTests.tasks([("get", "{download: {url: '\(server.baseURL)/big', to: big.bin}, retries: 1}")], in: folder)
        _ = await DownloadRunnerTests.run(tasks[0], runner: runner, attempt: 1)
        let second = await DownloadRunnerTests.run(tasks[0], runner: runner, attempt: 2)
        #expect(second.result == .succeeded)
        let range = try #require(server.requests.last?.header("Range"))
        #expect(range != "bytes=0-", "the second attempt resumed")
        #expect(DownloadRunnerTests.contents(folder + "/big.bin") == body)
        #expect(Self.noted(folder + "/big.bin") == DownloadRunnerTests.xxh128(body))
    }

    /// With a sha256 to check, a long body's SHA-256 takes the hashing queue and its XXH3-128 is
    /// fed as the bytes are received; a resumed rest short enough is hashed inline, both at once. The digest
    /// noted is still that of the whole file, in order, and so is the SHA-256 checked.
    @Test func aTransferWithASHA256NotesTheDigestOfTheWholeFileHashedOnTwoThreads() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        let block = DirectWrites.blockSize
        let body = DownloadRunnerTests.bytes(Int(HTTPTransfer.inlineHashLimit) + 3 * block + 777, seed: 41)
        // Cut within a block, after several: the rest (under the limit) is hashed inline.
        let first = 3 * block + 1_234
        #expect(HTTPTransfer.hashesInline(bodyLength: Int64(body.count - first)))
        server.route("/file") { _ in
            var response = TestHTTPServer.Response(headers: [("ETag", "\"v1\"")], body: body)
            response.servesRanges = true
            if server.requestCount("/file") == 1 { response.closeAfter = first }
            return response
        }
        // Other bytes: the same ones would come from the download cache, not a transfer.
        let whole = DownloadRunnerTests.bytes(body.count - 5_000, seed: 43)
        server.route("/whole") { _ in .init(body: whole) }
        let runner = DownloadRunnerTests.runner(in: folder)
        defer { runner.finishRun() }
        let sha256 = DownloadRunnerTests.sha256(body)
        let tasks = try DownloadRunnerTests.tasks(
            [
                ("resumed", "{download: {url: '\(server.baseURL)/file', to: resumed.bin, sha256: \(sha256)}, retries: 1}"),
                ("whole", "{download: {url: '\(server.baseURL)/whole', to: whole.bin, sha256: \(DownloadRunnerTests.sha256(whole))}}"),
            ], in: folder)
        #expect(await DownloadRunnerTests.run(tasks[0], runner: runner, attempt: 1).result != .succeeded)
        #expect(await DownloadRunnerTests.run(tasks[0], runner: runner, attempt: 2).result == .succeeded)
        #expect(server.requests.last?.header("Range") == "bytes=\(first)-")
        #expect(await DownloadRunnerTests.run(tasks[1], runner: runner).result == .succeeded)
        for (name, bytes) in [("resumed.bin", body), ("whole.bin", whole)] {
            #expect(DownloadRunnerTests.contents(folder + "/" + name) == bytes, "\(name)")
            #expect(Self.noted(folder + "/" + name) == DownloadRunnerTests.xxh128(bytes), "\(name)")
        }
        #expect(server.requestCount("/whole") == 1)
    }

    /// Through a proxy the body comes by AsyncHTTPClient's parts (copied into blocks), not the
    /// plain reader's reads: a long body with a sha256 still notes the XXH3-128 of the whole
    /// file, fed from each part as it came while the SHA-256 took the hashing queue.
    @Test func aProxiedTransferWithASHA256NotesTheDigestOfTheWholeFile() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let proxy = try TestHTTPServer()
        defer { proxy.shutdown() }
        let body = DownloadRunnerTests.bytes(Int(HTTPTransfer.inlineHashLimit) + 2 * DirectWrites.blockSize + 4_321, seed: 47)
        #expect(!HTTPTransfer.hashesInline(bodyLength: Int64(body.count)))
        proxy.route("/long") { _ in .init(body: body) }
        let tasks = try DownloadRunnerTests.tasks(
            [("get", "{download: {url: 'http://downloads.example/long', to: long.bin, sha256: \(DownloadRunnerTests.sha256(body))}}")], in: folder)
        let runner = DownloadRunnerTests.runner(in: folder, ["http_proxy": "127.0.0.1:\(proxy.port)"])
        defer { runner.finishRun() }
        #expect(await DownloadRunnerTests.run(tasks[0], runner: runner).result == .succeeded)
        #expect(proxy.requests.map(\.target) == ["http://downloads.example/long"])
        #expect(DownloadRunnerTests.contents(folder + "/long.bin") == body)
        #expect(Self.noted(folder + "/long.bin") == DownloadRunnerTests.xxh128(body))
    }

    @Test func aFileURLACacheHitAndAFinishedSharedTransferEachNoteTheirTo() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        let body = DownloadRunnerTests.bytes(200_000, seed: 3)
        let digest = DownloadRunnerTests.sha256(body)
        server.route("/asset") { _ in .init(body: body) }
        try Data(body).write(to: URL(fileURLWithPath: folder + "/source.bin"))
        let url = "\(server.baseURL)/asset"
        let tasks = try DownloadRunnerTests.tasks(
            [
                ("local", "{download: {url: 'file://\(folder)/source.bin', to: local.bin}}"),
                ("first", "{download: {url: '\(url)', to: first.bin, sha256: \(digest)}}"),
                ("again", "{download: {url: '\(url)', to: again.bin}}"),
                ("cached", "{download: {url: '\(server.baseURL)/elsewhere', to: cached.bin, sha256: \(digest)}}"),
            ], in: folder)
        let runner = DownloadRunnerTests.runner(in: folder)
        defer { runner.finishRun() }
        for task in tasks {
            let attempt = await DownloadRunnerTests.run(task, runner: runner)
            #expect(attempt.result == .succeeded, "\(task.id)")
        }
        #expect(server.requestCount("/asset") == 1, "`again` copied the finished transfer")
        #expect(server.requestCount("/elsewhere") == 0, "`cached` came from the cache")
        for name in ["local.bin", "first.bin", "again.bin", "cached.bin"] {
            #expect(DownloadRunnerTests.contents(folder + "/" + name) == body, "\(name)")
            #expect(Self.noted(folder + "/" + name) == DownloadRunnerTests.xxh128(body), "\(name)")
        }
    }

    /// A file that failed its check is never placed, so nothing is noted for `to`; a file
    /// changed after it was placed has another identity and finds nothing either.
    @Test func nothingIsNotedForAFileThatFailedItsCheckOrChangedSince() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        let body = DownloadRunnerTests.bytes(50_000)
        server.route("/file") { _ in .init(body: body) }
        let runner = DownloadRunnerTests.runner(in: folder)
        defer { runner.finishRun() }
        let tasks = try DownloadRunnerTests.tasks(
            [
                ("wrong", "{download: {url: '\(server.baseURL)/file', to: wrong.bin, sha256: \(String(repeating: "0", count: 64))}}"),
                ("right", "{download: {url: '\(server.baseURL)/file', to: right.bin}}"),
            ], in: folder)
        let wrong = await DownloadRunnerTests.run(tasks[0], runner: runner)
        #expect(wrong.result != .succeeded)
        #expect(FileStatus.of(path: folder + "/wrong.bin") == nil)
        #expect(await DownloadRunnerTests.run(tasks[1], runner: runner).result == .succeeded)
        let handle = try #require(FileHandle(forWritingAtPath: folder + "/right.bin"))
        try handle.write(contentsOf: Data("changed".utf8))
        try handle.close()
        #expect(Self.noted(folder + "/right.bin") == nil)
    }

    /// Downloads into one folder leave one fsync of it for the end of the run, not one each.
    @Test func theFolderOfManyDownloadsIsSyncedOnceAtTheEndOfTheRun() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        server.route("/file") { request in .init(body: Array(request.target.utf8)) }
        let runner = DownloadRunnerTests.runner(in: folder)
        let tasks = try DownloadRunnerTests.tasks(
            (0..<5).map { ("d\($0)", "{download: {url: '\(server.baseURL)/file?\($0)', to: out/f\($0)}}") }, in: folder)
        for task in tasks {
            #expect(await DownloadRunnerTests.run(task, runner: runner).result == .succeeded)
        }
        #expect(runner.folderSyncs.count == 1)
        runner.finishRun()
        #expect(runner.folderSyncs.count == 0)
        #expect(DownloadRunnerTests.folderContents(folder + "/out") == ["f0", "f1", "f2", "f3", "f4"])
    }
}
