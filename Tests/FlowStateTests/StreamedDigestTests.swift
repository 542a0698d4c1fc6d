import FlowFiles
import Testing

@testable import FlowState

/// A digest an action computed while it wrote a file stands in for reading the file back, for
/// that version of the file only, and as of the moment it was noted.
@Suite struct StreamedDigestTests {
    @Test func aFileWhoseDigestTheActionNotedIsNotReadBack() throws {
        let disk = InMemoryFileSystem()
        disk.write("/out", "built")
        disk.noteStreamedDigest(of: "/out")
        var digests = FileDigests(known: [:], fileSystem: disk)
        #expect(digests.digest(of: "/out") == InMemoryFileSystem.digest("built"))
        #expect(disk.hashes == 0)
    }

    @Test func aFileChangedAfterTheNoteIsHashed() throws {
        let disk = InMemoryFileSystem()
        disk.write("/out", "built")
        disk.noteStreamedDigest(of: "/out")
        disk.advance(seconds: 1)
        disk.write("/out", "edited")
        var digests = FileDigests(known: [:], fileSystem: disk)
        #expect(digests.digest(of: "/out") == InMemoryFileSystem.digest("edited"))
        #expect(disk.hashes == 1)
    }

    /// The record is as of the note, not of the check: a file noted right after it was
    /// written is racy then, and is hashed again by the next run, however late the check was.
    @Test func theRecordIsAsOfTheNoteSoTheRacyRuleStillHolds() throws {
        let disk = InMemoryFileSystem()
        disk.write("/out", "built")
        disk.noteStreamedDigest(of: "/out")
        disk.advance(seconds: 60)
        var digests = FileDigests(known: [:], fileSystem: disk)
        _ = digests.digest(of: "/out")
        let record = try #require(digests.fresh.first?.record)
        #expect(!record.stands(for: try #require(disk.status(of: "/out"))))
    }

    @Test func theStoreHandsADigestOutOnceAndOnlyForTheSameIdentity() {
        let store = StreamedDigests(limit: 4)
        let identity = FileStatus(size: 3, modifiedNanoseconds: 10, changedNanoseconds: 11, inode: 7)
        store.note("abc", for: identity)
        var other = identity
        other.changedNanoseconds = 12
        #expect(store.take(other) == nil)
        #expect(store.take(identity)?.digest == "abc")
        #expect(store.take(identity) == nil)
    }

    /// Digests nobody claims (files no task declares) do not pile up without bound.
    @Test func unclaimedDigestsAreBounded() {
        let store = StreamedDigests(limit: 4)
        for inode in 1...9 {
            store.note("d\(inode)", for: .init(size: 1, modifiedNanoseconds: 1, changedNanoseconds: 1, inode: UInt64(inode)))
        }
        #expect(store.count <= 4)
        #expect(store.take(.init(size: 1, modifiedNanoseconds: 1, changedNanoseconds: 1, inode: 9))?.digest == "d9")
    }

    /// A long run notes and takes a digest for every file it writes: the taken ones leave no
    /// trace, so a digest that waits to be taken is kept while fewer than `limit` wait, however
    /// many files came and went since (the store counted the taken ones too, and dropped it).
    @Test func digestsTakenDoNotCountAgainstTheBound() {
        let store = StreamedDigests(limit: 4)
        func status(_ inode: Int) -> FileStatus { .init(size: 1, modifiedNanoseconds: 1, changedNanoseconds: 1, inode: UInt64(inode)) }
        store.note("waiting", for: status(0))
        for inode in 1...1000 {
            store.note("d\(inode)", for: status(inode))
            #expect(store.take(status(inode))?.digest == "d\(inode)")
        }
        #expect(store.count == 1)
        #expect(store.take(status(0))?.digest == "waiting")
    }

    /// A file noted, taken and noted again under the same identity (nothing about it changed)
    /// is kept as the newest note, not dropped as the oldest one.
    @Test func aDigestNotedAgainAfterItWasTakenIsKeptAsTheNewest() {
        let store = StreamedDigests(limit: 4)
        func status(_ inode: Int) -> FileStatus { .init(size: 1, modifiedNanoseconds: 1, changedNanoseconds: 1, inode: UInt64(inode)) }
        store.note("first", for: status(0))
        _ = store.take(status(0))
        for inode in 1...3 { store.note("d\(inode)", for: status(inode)) }
        store.note("again", for: status(0))
        store.note("d4", for: status(4))
        #expect(store.take(status(0))?.digest == "again")
    }
}
