import Foundation

/// Runs `body`, which blocks (a pipe read to its end, a process's exit), on a thread of its own
/// and waits for it without holding one of the few threads the suite's async tests share.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { done in
        Thread.detachNewThread { done.resume(with: Result { try body() }) }
    }
}
