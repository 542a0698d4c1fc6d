import Foundation

/// A value behind a lock, for the mutable state of a sink.
///
/// The bus never calls a sink twice at once, so the lock is never contended; it is here so that
/// a sink is `Sendable` by construction rather than by promise, as the house style asks.
/// `NSLock` rather than `Mutex` because the package still supports macOS 13.
package final class LockedState<Value>: @unchecked Sendable {  // `lock` guards `value`.
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
