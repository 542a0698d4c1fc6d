import FlowTestServer
import Foundation
import Testing

@testable import FlowActions

/// A response body gathered into whole blocks on the network thread (`StagedBlock`) and handed
/// a block at a time to the file's hashing and write queues: every byte received lands at `to`
/// in order, whatever the body's length against the block size, and an attempt that breaks off
/// keeps the bytes of the block it was filling.
@Suite struct DownloadBlockTests {
    typealias Runner = DownloadRunnerTests

    static let block = DirectWrites.blockSize

    @Test(arguments: [0, 1, block - 1, block, block + 1, 2 * block, 2 * block + 4_097, 9 * block + 12_345])
    func aBodyOfAnyLengthAgainstTheBlockSizeArrivesWholeAndVerified(_ length: Int) async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        let body = Runner.bytes(length, seed: UInt8(truncatingIfNeeded: length))
        server.route("/file") { _ in .init(body: body) }
        let runner = Runner.runner(in: folder)
        defer { runner.finishRun() }
        let tasks = try Runner.tasks(
            [("get", "{download: {url: '\(server.baseURL)/file', to: out.bin, sha256: \(Runner.sha256(body))}}")], in: folder)
        let attempt = await Runner.run(tasks[0], runner: runner)
        #expect(attempt.result == .succeeded)
        #expect(Runner.contents(folder + "/out.bin") == body)
        #expect(Runner.folderContents(folder) == ["out.bin"])
        #expect(attempt.progress.last.map { $0.0 == Int64(length) && $0.1 == Int64(length) } == true, "\(attempt.progress)")
    }

    /// The first answer stalls after a whole block and part of the next: the part, still in the
    /// block being filled when the attempt fails, is written too, so the retry asks for exactly
    /// the bytes after those received, and its progress counts on from them.
    @Test func aBrokenOffAttemptKeepsThePartlyFilledBlockAndTheRetryCountsOnFromIt() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        let body = Runner.bytes(3 * Self.block, seed: 11)
        let kept = Self.block + 100_000
        server.route("/file") { _ in
            var response = TestHTTPServer.Response(headers: [("ETag", "\"v1\"")], body: body)
            response.servesRanges = true
            if server.requestCount("/file") == 1 { response.stallAfter = kept }
            return response
        }
        let runner = Runner.runner(in: folder, readTimeout: Runner.stallReadTimeout)
        defer { runner.finishRun() }
        let tasks = try Runner.tasks(
            [("get", "{download: {url: '\(server.baseURL)/file', to: out.bin, sha256: \(Runner.sha256(body))}, retries: 1}")], in: folder)
        let first = await Runner.run(tasks[0], runner: runner, attempt: 1)
        #expect(first.result != .succeeded)
        let second = await Runner.run(tasks[0], runner: runner, attempt: 2)
        #expect(second.result == .succeeded)
        #expect(server.requests.last?.header("Range") == "bytes=\(kept)-")
        #expect(Runner.contents(folder + "/out.bin") == body)
        #expect(second.progress.allSatisfy { $0.0 >= Int64(kept) }, "\(second.progress)")
        #expect(second.progress.last.map { $0.0 == Int64(body.count) } == true, "\(second.progress)")
    }

    /// A resumed answer (206) that breaks off soon after its head: the bytes it brought are
    /// kept too, so the next retry asks for the bytes after them, as curl's would. The head
    /// and a short body arrive with the close in one read; while the 206's head waited for the
    /// file's queue, the client dropped that body with the failed response (seen black-box:
    /// 64 KiB of a 206 cut there were asked for again).
    @Test func aResumedAnswerThatBreaksOffKeepsWhatItBrought() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        let body = Runner.bytes(3 * Self.block, seed: 13)
        let first = 100_000, second = 20_000
        server.route("/file") { _ in
            var response = TestHTTPServer.Response(headers: [("ETag", "\"v1\"")], body: body)
            response.servesRanges = true
            switch server.requestCount("/file") {
            case 1: response.closeAfter = first
            case 2: response.closeAfter = second
            default: break
            }
            return response
        }
        let runner = Runner.runner(in: folder)
        defer { runner.finishRun() }
        let tasks = try Runner.tasks(
            [("get", "{download: {url: '\(server.baseURL)/file', to: out.bin, sha256: \(Runner.sha256(body))}, retries: 2}")], in: folder)
        #expect(await Runner.run(tasks[0], runner: runner, attempt: 1).result != .succeeded)
        #expect(await Runner.run(tasks[0], runner: runner, attempt: 2).result != .succeeded)
        #expect(await Runner.run(tasks[0], runner: runner, attempt: 3).result == .succeeded)
        #expect(server.requests.map { $0.header("Range") } == [nil, "bytes=\(first)-", "bytes=\(first + second)-"])
        #expect(Runner.contents(folder + "/out.bin") == body)
    }
}

/// Where a body's blocks are hashed (`HTTPTransfer.hashesInline(bodyLength:)`): a short body of
/// known length on the file's write queue, just before each write; any other on the file's
/// hashing queue. Either way the digest covers every byte in order, across attempts that hash
/// one way and then the other.
@Suite struct DownloadInlineHashTests {
    typealias Runner = DownloadRunnerTests

    static let block = DirectWrites.blockSize
    static let limit = Int(HTTPTransfer.inlineHashLimit)

    @Test func aShortBodyOfKnownLengthIsHashedInlineAndAnyOtherOnTheHashingQueue() {
        #expect(HTTPTransfer.hashesInline(bodyLength: 0))
        #expect(HTTPTransfer.hashesInline(bodyLength: 1 << 20))
        #expect(HTTPTransfer.hashesInline(bodyLength: Int64(Self.limit)))
        #expect(!HTTPTransfer.hashesInline(bodyLength: Int64(Self.limit) + 1))
        #expect(!HTTPTransfer.hashesInline(bodyLength: nil), "a chunked body may be of any length")
    }

    @Test(arguments: [(limit - 1, false), (limit, false), (limit + 1, false), (block + 7, true), (limit + block + 3, true)])
    func aBodyEitherSideOfTheLimitArrivesWholeAndVerified(_ length: Int, chunked: Bool) async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        let body = Runner.bytes(length, seed: 29)
        server.route("/file") { _ in
            var response = TestHTTPServer.Response(body: body)
            response.omitsLength = chunked
            return response
        }
        let runner = Runner.runner(in: folder)
        defer { runner.finishRun() }
        let tasks = try Runner.tasks(
            [("get", "{download: {url: '\(server.baseURL)/file', to: out.bin, sha256: \(Runner.sha256(body))}}")], in: folder)
        #expect(await Runner.run(tasks[0], runner: runner).result == .succeeded)
        #expect(Runner.contents(folder + "/out.bin") == body)
        #expect(Runner.folderContents(folder) == ["out.bin"])
    }

    /// The first answer is long (hashed on the hashing queue) and breaks off; the resumed
    /// answers' rests are short (hashed inline), and the first of them breaks off too: the
    /// file's digest is still that of its bytes in order, so the sha256 check passes.
    @Test func attemptsHashingOneWayThenTheOtherGiveTheDigestOfTheWholeFile() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        let body = Runner.bytes(Self.limit + 3 * Self.block, seed: 31)
        // The rest after `first` is under the limit: the resumed answers hash inline.
        let first = 3 * Self.block + 1_000, second = first + Self.block + 5_000
        #expect(HTTPTransfer.hashesInline(bodyLength: Int64(body.count - first)))
        server.route("/file") { _ in
            var response = TestHTTPServer.Response(headers: [("ETag", "\"v1\"")], body: body)
            response.servesRanges = true
            switch server.requestCount("/file") {
            case 1: response.closeAfter = first
            case 2: response.closeAfter = second - first
            default: break
            }
            return response
        }
        let runner = Runner.runner(in: folder)
        defer { runner.finishRun() }
        let tasks = try Runner.tasks(
            [("get", "{download: {url: '\(server.baseURL)/file', to: out.bin, sha256: \(Runner.sha256(body))}, retries: 2}")], in: folder)
        #expect(await Runner.run(tasks[0], runner: runner, attempt: 1).result != .succeeded)
        #expect(await Runner.run(tasks[0], runner: runner, attempt: 2).result != .succeeded)
        #expect(await Runner.run(tasks[0], runner: runner, attempt: 3).result == .succeeded)
        #expect(server.requests.map { $0.header("Range") } == [nil, "bytes=\(first)-", "bytes=\(second)-"])
        #expect(Runner.contents(folder + "/out.bin") == body)
    }
}
