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
    /// The bytes are laid out once (each text's length, then its UTF-8), and compared and
    /// hashed whole: byte by byte through `String.UTF8View`, each task's lookups cost more
    /// than the rest of its bookkeeping here.
    struct Key: Hashable, Sendable {
        let url: String
        let headers: [String]
        private let bytes: [UInt8]

        init(url: String, headers: [String]) {
            self.url = url
            self.headers = headers
            var bytes: [UInt8] = []
            for text in [url] + headers {
                withUnsafeBytes(of: UInt64(text.utf8.count).littleEndian) { bytes += $0 }
                bytes += text.utf8
            }
            self.bytes = bytes
        }

        static func == (left: Self, right: Self) -> Bool {
            left.bytes == right.bytes
        }

        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
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
        case finished(path: String, digests: BodyDigests)
    }

    private enum Entry {
        case running(waiters: [@Sendable (Ending) -> Void])
        case finished(path: String, digests: BodyDigests)
    }

    private let entries = NIOLockedValueBox<[Key: Entry]>([:])

    func join(_ key: Key, waiter: @escaping @Sendable (Ending) -> Void) -> Role {
        entries.withLockedValue { entries in
            switch entries[key] {
            case .running(let waiters):
                entries[key] = .running(waiters: waiters + [waiter])
                return .waiting
            case .finished(let path, let digests):
                return .finished(path: path, digests: digests)
            case nil:
                entries[key] = .running(waiters: [])
                return .leader
            }
        }
    }

    /// Whether some task waits for the transfer under way: only then does the leader hold its
    /// bytes open for them (`FinishedFile`, an `open` and a `close` a download otherwise).
    func isAwaited(_ key: Key) -> Bool {
        entries.withLockedValue { entries in
            if case .running(let waiters) = entries[key] { !waiters.isEmpty } else { false }
        }
    }

    /// Called by the leader, with the `to` it placed the bytes at and their digest, which later
    /// tasks copy; with none, or after a failure, the entry is cleared and the next task
    /// transfers again. A task that began waiting after the leader looked (`isAwaited`) is told
    /// `.abandoned`, and joins again: it then copies from `placed`, or transfers.
    func ended(_ key: Key, with ending: Ending, placed: (path: String, digests: BodyDigests)? = nil) {
        let waiters: [@Sendable (Ending) -> Void] = entries.withLockedValue { entries in
            guard case .running(let waiters) = entries[key] else { return [] }
            entries[key] = placed.map { .finished(path: $0.path, digests: $0.digests) }
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
