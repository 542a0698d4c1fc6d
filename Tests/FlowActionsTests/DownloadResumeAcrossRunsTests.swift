import FlowEngine
import FlowTestServer
import Foundation
import Testing

@testable import FlowActions

/// A partial file and its resume record left by a flowrun that was killed (as the next run finds
/// them) are resumed with Range and If-Range only when the record is sound and for this URL
/// and the server's 206 continues the bytes; otherwise the download starts over, whole.
@Suite struct DownloadResumeAcrossRunsTests {
    typealias Runner = DownloadRunnerTests

    static let body = Runner.bytes(900_000, seed: 9)
    static let kept = 524_288

    /// Leaves in `folder` what a flowrun killed during the download of `url` to `f.bin` leaves.
    static func leave(_ bytes: [UInt8], record: String?, in folder: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/.f.bin.flowrun-resume.part"))
        if let record { try Data(record.utf8).write(to: URL(fileURLWithPath: folder + "/.f.bin.flowrun-resume.meta")) }
    }

    static func record(_ url: String, validator: String = "\"v1\"", size: Int64? = Int64(body.count)) -> String {
        ResumeRecord(url: url, validator: validator, expectedSize: size).text!
    }

    /// A server holding `body` with ETag `etag`, answering ranges.
    static func server(_ body: [UInt8] = body, etag: String = "\"v1\"") throws -> TestHTTPServer {
        let server = try TestHTTPServer()
        server.route("/f") { _ in
            var response = TestHTTPServer.Response(headers: [("ETag", etag)], body: body)
            response.servesRanges = true
            return response
        }
        return server
    }

    static func download(_ url: String, in folder: String, sha256: String? = sha256(body), retries: Int = 0) async throws -> AttemptResult? {
        let runner = Runner.runner(in: folder)
        defer { runner.finishRun() }
        let sum = sha256.map { ", sha256: \($0)" } ?? ""
        let tasks = try Runner.tasks([("get", "{download: {url: '\(url)', to: f.bin\(sum)}, retries: \(retries)}")], in: folder)
        return await Runner.run(tasks[0], runner: runner).result
    }

    static func sha256(_ bytes: [UInt8]) -> String { Runner.sha256(bytes) }

    @Test func keptBytesWithASoundRecordAreResumedAndTheWholeFileIsVerified() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try Self.server()
        defer { server.shutdown() }
        let url = "\(server.baseURL)/f"
        try Self.leave(Array(Self.body[..<Self.kept]), record: Self.record(url), in: folder)

        #expect(try await Self.download(url, in: folder) == .succeeded)
        #expect(Runner.contents(folder + "/f.bin") == Self.body)
        #expect(server.requests.map { $0.header("Range") } == ["bytes=\(Self.kept)-"])
        #expect(server.requests.first?.header("If-Range") == "\"v1\"")
        #expect(server.bodyBytesSent("/f") == Self.body.count - Self.kept)
        #expect(Runner.folderContents(folder) == ["f.bin"])
    }

    /// The whole file's digest covers the kept bytes: kept bytes that are not the file's fail
    /// the sha256, and nothing is left to resume from.
    @Test func keptBytesThatAreNotTheFilesFailTheSha256AndAreDropped() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try Self.server()
        defer { server.shutdown() }
        let url = "\(server.baseURL)/f"
        var wrong = Array(Self.body[..<Self.kept])
        wrong[1000] ^= 0x20
        try Self.leave(wrong, record: Self.record(url), in: folder)

        let result = try await Self.download(url, in: folder)
        #expect(ActionAttemptHarness.reason(result)?.hasPrefix("sha256 mismatch for \(folder)/f.bin") == true, "\(result)")
        #expect(Runner.folderContents(folder) == [])
    }

    struct Leftover: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var bytes: [UInt8]
        /// The record's text, given the URL.
        var record: @Sendable (String) -> String?
    }

    static let startsOver: [Leftover] = [
        Leftover(testDescription: "no record", bytes: Array(body[..<kept]), record: { _ in nil }),
        Leftover(
            testDescription: "a record with a flipped byte", bytes: Array(body[..<kept]),
            record: { url in
                var text = Array(DownloadResumeAcrossRunsTests.record(url).utf8)
                text[text.count / 2] ^= 0x01
                return String(decoding: text, as: UTF8.self)
            }),
        Leftover(
            testDescription: "a record cut short", bytes: Array(body[..<kept]),
            record: { url in String(DownloadResumeAcrossRunsTests.record(url).dropLast(20)) }),
        Leftover(
            testDescription: "a record of another URL", bytes: Array(body[..<kept]),
            record: { url in DownloadResumeAcrossRunsTests.record(url + "?other") }),
        Leftover(
            testDescription: "as many bytes as the whole file", bytes: body,
            record: { url in DownloadResumeAcrossRunsTests.record(url) }),
    ]

    @Test(arguments: startsOver) func aLeftoverThatCannotBeTrustedIsDroppedAndTheFileFetchedWhole(_ leftover: Leftover) async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try Self.server()
        defer { server.shutdown() }
        let url = "\(server.baseURL)/f"
        try Self.leave(leftover.bytes, record: leftover.record(url), in: folder)

        #expect(try await Self.download(url, in: folder) == .succeeded)
        #expect(Runner.contents(folder + "/f.bin") == Self.body)
        #expect(server.requests.map { $0.header("Range") } == [nil])
        #expect(Runner.folderContents(folder) == ["f.bin"])
    }

    /// The server's file changed since the kept bytes: If-Range gets the new file whole (200).
    @Test func aChangedFileAnswers200ToIfRangeAndIsTakenWhole() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let changed = Runner.bytes(800_000, seed: 10)
        let server = try Self.server(changed, etag: "\"v2\"")
        defer { server.shutdown() }
        let url = "\(server.baseURL)/f"
        try Self.leave(Array(Self.body[..<Self.kept]), record: Self.record(url), in: folder)

        #expect(try await Self.download(url, in: folder, sha256: Self.sha256(changed)) == .succeeded)
        #expect(Runner.contents(folder + "/f.bin") == changed)
        #expect(server.requests.map { $0.header("Range") } == ["bytes=\(Self.kept)-"])
        #expect(Runner.folderContents(folder) == ["f.bin"])
    }

    /// A 416 for the rest of a file an earlier run began starts over at once, even with no
    /// retry: the first attempt of this run has not failed at anything yet.
    @Test func a416ForBytesAnEarlierRunKeptStartsOverInTheSameAttempt() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let shrunk = Runner.bytes(300_000, seed: 11)
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        server.route("/f") { request in
            if request.header("Range") != nil { return .init(status: 416, headers: [("Content-Range", "bytes */300000")]) }
            return .init(headers: [("ETag", "\"v2\"")], body: shrunk)
        }
        let url = "\(server.baseURL)/f"
        try Self.leave(Array(Self.body[..<Self.kept]), record: Self.record(url), in: folder)

        #expect(try await Self.download(url, in: folder, sha256: nil) == .succeeded)
        #expect(Runner.contents(folder + "/f.bin") == shrunk)
        #expect(server.requests.map { $0.header("Range") } == ["bytes=\(Self.kept)-", nil])
        #expect(Runner.folderContents(folder) == ["f.bin"])
    }

    /// The record is written as the response begins, before its body, and removed with the
    /// partial file: what a killed run leaves is a record of the body being fetched. A body
    /// the server says is short gets none (`longestUnrecordedBody`): it is fetched whole again.
    @Test(arguments: [false, true])
    func theRecordNamesTheResponsesValidatorAndLengthWhileTheBodyComes(short: Bool) async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        let longest = Int(PartialFile.longestUnrecordedBody)
        // Either side of the limit, both stalled after a block has reached the partial file.
        let body = Runner.bytes(short ? longest : longest + 1, seed: 5)
        server.route("/f") { _ in
            var response = TestHTTPServer.Response(headers: [("ETag", "\"v1\"")], body: body)
            response.stallAfter = 600_000
            return response
        }
        let url = "\(server.baseURL)/f"
        // The stall lasts until the attempt is stopped below, however late a loaded machine
        // runs the watcher: a read timeout would end it first, and remove the record.
        let runner = Runner.runner(in: folder, readTimeout: 3600)
        let tasks = try Runner.tasks([("get", "{download: {url: '\(url)', to: f.bin}}")], in: folder)
        let record = folder + "/.f.bin.flowrun-resume.meta"
        let partial = folder + "/.f.bin.flowrun-resume.part"
        // Once a whole block of the stalled body is in the partial file, the record is there
        // too: it went to the file's queue ahead of the body. Then the attempt is stopped.
        let seen = LockedBox<String?>(nil)
        let handle = LockedBox<(any RunningAttempt)?>(nil)
        let watcher = Task {
            while ((try? FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int) ?? 0) < Self.kept {
                try await Task.sleep(nanoseconds: 10_000_000)
            }
            seen.update { $0 = try? String(contentsOfFile: record, encoding: .utf8) }
            while handle.value == nil { try await Task.sleep(nanoseconds: 10_000_000) }
            handle.value?.terminate()
        }
        let attempt = await Runner.run(tasks[0], runner: runner) { running, _ in handle.update { $0 = running } }
        watcher.cancel()
        runner.finishRun()
        #expect(attempt.result != .succeeded)
        #expect(seen.value == (short ? nil : Self.record(url, size: Int64(body.count))))
        #expect(Runner.folderContents(folder) == [], "a cancel leaves neither the partial file nor its record")
    }
}
