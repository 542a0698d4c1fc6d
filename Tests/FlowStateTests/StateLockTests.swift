import Foundation
import Testing

@testable import FlowState

/// Two flowruns on one state folder: the second waits, or with --no-wait refuses.
@Suite struct StateLockTests {
    let folder = StateFolder(path: FileManager.default.temporaryDirectory.appendingPathComponent("lock-\(UUID().uuidString)").path)

    @Test func aSecondHolderIsRefusedWhenItMustNotWaitAndToldWhoHoldsIt() throws {
        defer { try? FileManager.default.removeItem(atPath: folder.path) }
        let first = try StateLock(folder: folder, wait: false) { _ in Issue.record("the first waited") }
        do {
            _ = try StateLock(folder: folder, wait: false) { _ in Issue.record("waited despite --no-wait") }
            Issue.record("took a held lock")
        } catch {
            #expect("\(error)".contains("another flowrun (pid \(getpid())) is using the state folder \(folder.path)"))
            #expect("\(error)".contains("--no-wait"))
        }
        first.release()
        // Waiting allowed: a child that another test is spawning at this moment holds a copy of
        // the lock's descriptor (and so the flock) from its fork until its exec closes it.
        _ = try StateLock(folder: folder, wait: true) { _ in }
    }

    @Test func aSecondHolderWaitsUntilTheFirstLetsGo() throws {
        defer { try? FileManager.default.removeItem(atPath: folder.path) }
        let first = try StateLock(folder: folder, wait: false) { _ in }
        let waiting = DispatchSemaphore(value: 0)
        let acquired = DispatchSemaphore(value: 0)
        let folder = folder
        Thread.detachNewThread {
            let second = try? StateLock(folder: folder, wait: true) { holder in
                #expect(holder == "\(getpid())")
                waiting.signal()
            }
            #expect(second != nil)
            acquired.signal()
        }
        #expect(waiting.wait(timeout: .now() + 600) == .success)  // a hang guard
        first.release()
        #expect(acquired.wait(timeout: .now() + 600) == .success)
    }
}
