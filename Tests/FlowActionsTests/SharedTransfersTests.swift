import Testing

@testable import FlowActions

/// The leader of a shared transfer holds its bytes open only for tasks that wait (`isAwaited`);
/// a task that starts waiting after the leader looked is told to join again, and then copies
/// the bytes from where the leader placed them.
@Suite struct SharedTransfersTests {
    let key = SharedTransfers.Key(url: "http://127.0.0.1/f", headers: [])

    /// Keys are the same only for the same bytes: canonically equivalent URLs are two
    /// requests, and where the URL ends and a header begins counts.
    @Test func keysAreTheSameOnlyForTheSameBytes() {
        typealias Key = SharedTransfers.Key
        #expect(Key(url: "http://h/caf\u{E9}", headers: ["A: 1"]) == Key(url: "http://h/caf\u{E9}", headers: ["A: 1"]))
        #expect(Key(url: "http://h/caf\u{E9}", headers: []) != Key(url: "http://h/cafe\u{301}", headers: []))
        #expect(Key(url: "http://h/ab", headers: ["c"]) != Key(url: "http://h/a", headers: ["bc"]))
        #expect(Key(url: "http://h/a", headers: ["b", "c"]) != Key(url: "http://h/a", headers: ["bc"]))
        #expect(Key(url: "http://h/a", headers: [""]) != Key(url: "http://h/a", headers: []))
        let keys: Set = [Key(url: "http://h/x", headers: []), Key(url: "http://h/x", headers: []), Key(url: "http://h/y", headers: [])]
        #expect(keys.count == 2)
    }

    @Test func aTransferNobodyWaitsForIsNotAwaited() {
        let transfers = SharedTransfers()
        guard case .leader = transfers.join(key, waiter: { _ in }) else { Issue.record("the first task must lead"); return }
        #expect(!transfers.isAwaited(key))
        guard case .waiting = transfers.join(key, waiter: { _ in }) else { Issue.record("the second task must wait"); return }
        #expect(transfers.isAwaited(key))
    }

    @Test func aTaskThatBeganWaitingLateCopiesFromWhereTheBytesWerePlaced() {
        let transfers = SharedTransfers()
        _ = transfers.join(key, waiter: { _ in })
        #expect(!transfers.isAwaited(key))
        let told = LockedBox<[String]>([])
        _ = transfers.join(key) { ending in
            let word: String = if case .abandoned = ending { "abandoned" } else { "other" }
            told.update { $0.append(word) }
        }
        transfers.ended(key, with: .abandoned, placed: (path: "/out/f", digests: BodyDigests(content: "cd", sha256: "ab")))
        #expect(told.value == ["abandoned"])
        guard case .finished(let path, let digests) = transfers.join(key, waiter: { _ in }) else {
            Issue.record("a task joining after a placed transfer must copy it"); return
        }
        #expect(path == "/out/f")
        #expect(digests == BodyDigests(content: "cd", sha256: "ab"))
    }

    @Test func aTransferThatPlacedNothingIsMadeAgainByTheNextTask() {
        let transfers = SharedTransfers()
        _ = transfers.join(key, waiter: { _ in })
        transfers.ended(key, with: .failed(ActionFailure("HTTP 500", retryable: true)))
        guard case .leader = transfers.join(key, waiter: { _ in }) else { Issue.record("the next task must transfer"); return }
    }
}
