import NIOConcurrencyHelpers

/// The transfers of one run by URL and headers, so that tasks fetching the same URL make one
/// request: a task finding one under way waits for it, and one finding it finished copies the
/// file it produced.
///
/// Tasks share only the transfer and its errors: each places the bytes at its own `to`, and
/// what goes wrong there (a `to` that is a folder) is that task's failure alone.
final class SharedTransfers: Sendable {
    /// Compared by bytes: Swift's `==` on strings is canonical equivalence, under which a URL
    /// with "caf\u{E9}" and one with "cafe\u{301}" are equal, yet they are sent as two paths.
    struct Key: Hashable, Sendable {
        var url: String
        var headers: [String]

        static func == (left: Self, right: Self) -> Bool {
            left.url.utf8.elementsEqual(right.url.utf8) && left.headers.count == right.headers.count
                && zip(left.headers, right.headers).allSatisfy { $0.utf8.elementsEqual($1.utf8) }
        }

        func hash(into hasher: inout Hasher) {
            for text in [url] + headers {
                hasher.combine(text.utf8.count)
                for byte in text.utf8 { hasher.combine(byte) }
            }
        }
    }

    enum Ending: Sendable {
        /// The bytes are whole: each waiting task copies them to its own `to`.
        case finished(FinishedFile)
        case failed(ActionFailure)
        /// The leading task stopped for a reason of its own (cancelled, or its temporary file
        /// could not be made): a waiting task transfers instead.
        case abandoned
    }

    enum Role {
        /// The caller transfers, then calls `ended(_:with:)`.
        case leader
        /// Another task transfers; the waiter is called when it ends.
        case waiting
        case finished(path: String, sha256: String)
    }

    private enum Entry {
        case running(waiters: [@Sendable (Ending) -> Void])
        case finished(path: String, sha256: String)
    }

    private let entries = NIOLockedValueBox<[Key: Entry]>([:])

    func join(_ key: Key, waiter: @escaping @Sendable (Ending) -> Void) -> Role {
        entries.withLockedValue { entries in
            switch entries[key] {
            case .running(let waiters):
                entries[key] = .running(waiters: waiters + [waiter])
                return .waiting
            case .finished(let path, let sha256):
                return .finished(path: path, sha256: sha256)
            case nil:
                entries[key] = .running(waiters: [])
                return .leader
            }
        }
    }

    /// Called by the leader, with the `to` it placed the bytes at, which later tasks copy; with
    /// none, or after a failure, the entry is cleared and the next task transfers again.
    func ended(_ key: Key, with ending: Ending, placedAt path: String? = nil) {
        let waiters: [@Sendable (Ending) -> Void] = entries.withLockedValue { entries in
            guard case .running(let waiters) = entries[key] else { return [] }
            if case .finished(let bytes) = ending, let path {
                entries[key] = .finished(path: path, sha256: bytes.sha256)
            } else {
                entries[key] = nil
            }
            return waiters
        }
        for waiter in waiters { waiter(ending) }
    }

    /// Forgets a finished transfer whose file could not be copied (a later task changed it).
    func forget(_ key: Key) {
        entries.withLockedValue { entries in
            if case .finished = entries[key] { entries[key] = nil }
        }
    }
}
