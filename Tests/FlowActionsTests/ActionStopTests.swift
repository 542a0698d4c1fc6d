import FlowEngine
import FlowModel
import FlowTestServer
import Foundation
import Testing

@testable import FlowActions

/// Each action sees a stop the same way (`StopFlag`): the engine's cancel and a timeout
/// terminate an attempt, the end of a grace period kills it, and either ends the work under
/// way as "cancelled", with nothing left at `to` and no temporary file.
@Suite struct ActionStopTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case download, decompress, combine

        var testDescription: String { rawValue }
    }

    enum Stop: String, CaseIterable, CustomTestStringConvertible {
        /// As the engine stops an attempt on cancel or timeout.
        case terminate
        /// As it does at the end of the grace period.
        case kill

        var testDescription: String { rawValue }

        func apply(to attempt: any RunningAttempt) {
            switch self {
            case .terminate: attempt.terminate()
            case .kill: attempt.kill()
            }
        }
    }

    @Test(arguments: Kind.allCases, Stop.allCases)
    func aStopDuringTheWorkEndsTheAttemptAsCancelledAndLeavesNothing(kind: Kind, stop: Stop) async throws {
        let folder = try ActionAttemptHarness.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let loop = SerialQueueLoop()
        let attempt: ActionAttemptHarness.Attempt
        switch kind {
        case .download:
            // 10,000 bytes of 100,000, and then nothing: only the stop can end it.
            let server = try TestHTTPServer()
            defer { server.shutdown() }
            server.routeStalling("/stall", body: DownloadRunnerTests.bytes(100_000), after: 10_000)
            let runner = DownloadRunner(environment: ["FLOWRUN_CACHE_DIR": folder + "/cache"], loop: loop)
            defer { runner.finishRun() }
            let task = try ActionAttemptHarness.tasks(
                "version: 1\ntasks:\n  get: {download: {url: '\(server.baseURL)/stall', to: out/got.bin}}\n", in: folder)[0]
            attempt = await ActionAttemptHarness.run(task, on: runner, stopAtFirstProgress: stop.apply)
            try? FileManager.default.removeItem(atPath: folder + "/cache")
        case .decompress:
            try DecompressFixtures.tar(at: folder + "/big.tar", entryBytes: 1 << 20)
            let task = try ActionAttemptHarness.tasks(
                "version: 1\ntasks:\n  unpack: {decompress: {from: big.tar, to: out}}\n", in: folder)[0]
            attempt = await ActionAttemptHarness.run(task, on: DecompressRunner(loop: loop), stopAtFirstProgress: stop.apply)
            try FileManager.default.removeItem(atPath: folder + "/big.tar")
        case .combine:
            // Three blocks: the stop is seen at the next one.
            try Data(repeating: 7, count: 3 * InputFile.blockSize).write(to: URL(fileURLWithPath: folder + "/big.bin"))
            let task = try ActionAttemptHarness.tasks(
                "version: 1\ntasks:\n  join: {combine: {inputs: [big.bin], to: out/joined.bin}}\n", in: folder)[0]
            attempt = await ActionAttemptHarness.run(task, on: CombineRunner(loop: loop), stopAtFirstProgress: stop.apply)
            try FileManager.default.removeItem(atPath: folder + "/big.bin")
        }
        #expect(attempt.result == .failedAdvising(reason: "cancelled", retryable: false, notBeforeMilliseconds: nil))
        #expect(attempt.progress.count == 1, "no progress once stopped: \(attempt.progress)")
        #expect(ActionAttemptHarness.contents(of: folder).allSatisfy { $0 == "out" }, "\(ActionAttemptHarness.contents(of: folder))")
        #expect(ActionAttemptHarness.contents(of: folder + "/out") == [])
    }

    @Test func theStopFlagRunsTheHandlerOfTheStepUnderWayOnce() {
        let flag = StopFlag()
        let calls = LockedBox<[String]>([])
        #expect(flag.onStop { calls.update { $0.append("first") } })
        #expect(flag.onStop { calls.update { $0.append("second") } })
        #expect(!flag.isStopped)
        #expect(throws: Never.self) { try flag.throwIfStopped() }
        flag.stop()
        flag.stop()
        #expect(calls.value == ["second"])
        #expect(flag.isStopped)
        #expect(throws: ActionFailure.cancelled) { try flag.throwIfStopped() }
        #expect(!flag.onStop { calls.update { $0.append("late") } })
        #expect(calls.value == ["second"])
    }
}
