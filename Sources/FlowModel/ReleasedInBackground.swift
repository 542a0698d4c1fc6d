import Dispatch

/// Lets go of large values on a thread of its own, so that the caller goes on at once.
///
/// Freeing the node tree of a 100,000-task file, array by array, takes a free per allocation
/// made loading it; once the tree is decoded nothing needs it, and the other core is idle
/// while the plan is made and printed.
package enum ReleasedInBackground {
    /// Trees smaller than this are freed in place: a thread would cost more.
    package static let minimumNodes = 10_000

    private static let queue = DispatchQueue(label: "flowrun.release", qos: .utility)

    /// Releases `value` on the background queue.
    package static func release<Value: Sendable>(_ value: consuming Value) {
        let box = Box(value)
        queue.async { _ = box }
    }

    private final class Box<Value: Sendable>: Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }
}
