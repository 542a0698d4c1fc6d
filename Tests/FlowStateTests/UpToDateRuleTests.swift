import Testing

@testable import FlowState

/// The rules by which the up-to-date check and `--resume` trust what they recorded, on the
/// in-memory file system: when a file's status stands for its contents, when a task's inputs
/// changed while it ran, and when a task's work is kept.
@Suite struct UpToDateRuleTests {
    static let second: Int64 = 1_000_000_000

    /// Hashes `path` as a run would, and returns the record it keeps for the next run.
    func record(_ path: String, on disk: InMemoryFileSystem, known: [String: FileRecord] = [:]) throws -> FileRecord {
        var digests = FileDigests(known: known, fileSystem: disk)
        _ = digests.digest(of: path)
        return try #require(digests.fresh.last { $0.path == path }?.record)
    }

    @Test func aSettledFilesStatusStandsForItsContentsAndItIsNotHashedAgain() throws {
        let disk = InMemoryFileSystem()
        disk.write("/in", "one")
        disk.advance(seconds: 10)
        let known = ["/in": try record("/in", on: disk)]
        disk.advance(seconds: 60)
        var digests = FileDigests(known: known, fileSystem: disk)
        let hashesBefore = disk.hashes
        #expect(digests.digest(of: "/in") == InMemoryFileSystem.digest("one"))
        #expect(disk.hashes == hashesBefore)
    }

    /// git's racy rule: a file changed within the file system's timestamp step of the moment it
    /// was hashed may change again without its status showing it, so it is hashed next time.
    @Test(arguments: [0.0, 0.5, 1.9])
    func aFileHashedTooSoonAfterItChangedIsHashedAgainNextTime(secondsAfterTheWrite: Double) throws {
        let disk = InMemoryFileSystem()
        disk.write("/in", "one")
        disk.advance(seconds: secondsAfterTheWrite)
        let known = ["/in": try record("/in", on: disk)]
        disk.replaceKeepingStatus("/in", "two")
        disk.advance(seconds: 60)
        var digests = FileDigests(known: known, fileSystem: disk)
        #expect(digests.digest(of: "/in") == InMemoryFileSystem.digest("two"))
        // Hashed again now that it has settled, it is trusted from then on.
        let settled = try #require(digests.fresh.first?.record)
        #expect(settled.stands(for: try #require(disk.status(of: "/in"))))
    }

    /// `cp -p` or `touch -r` onto a same-sized file sets its mtime back, but not its ctime.
    @Test func aFileWhoseCtimeMovedIsHashedAgainEvenWithItsOldMtime() throws {
        let disk = InMemoryFileSystem()
        disk.write("/in", "one")
        disk.advance(seconds: 10)
        let known = ["/in": try record("/in", on: disk)]
        disk.advance(seconds: 10)
        var status = try #require(disk.status(of: "/in"))
        status.changedNanoseconds = disk.nowNanoseconds
        #expect(!known["/in"]!.stands(for: status))
        let unchanged = try #require(disk.status(of: "/in"))
        #expect(known["/in"]!.stands(for: unchanged))
    }

    @Test func anInputRewrittenWhileItsTaskRanIsSeenAtTheEnd() throws {
        let disk = InMemoryFileSystem()
        disk.write("/in", "one")
        disk.advance(seconds: 10)
        var atStart = FileDigests(known: [:], fileSystem: disk)
        let inputs = InputsAtStart(["/in"], digests: &atStart)
        #expect(disk.hashes == 0)  // settled: its status is enough
        disk.advance(seconds: 1)
        disk.write("/in", "two")
        var atEnd = FileDigests(known: [:], fileSystem: disk)
        #expect(!inputs.areUnchanged(digests: &atEnd))
    }

    /// An input written by a need just before its task starts: the status alone cannot show a
    /// same-sized rewrite in the same tick, so its contents are compared.
    @Test func aRacyInputRewrittenInTheSameTickIsSeenByItsContents() throws {
        let disk = InMemoryFileSystem()
        disk.write("/in", "one")
        var atStart = FileDigests(known: [:], fileSystem: disk)
        let inputs = InputsAtStart(["/in"], digests: &atStart)
        disk.replaceKeepingStatus("/in", "two")
        var atEnd = FileDigests(known: [:], fileSystem: disk)
        #expect(!inputs.areUnchanged(digests: &atEnd))

        disk.replaceKeepingStatus("/in", "one")
        var again = FileDigests(known: [:], fileSystem: disk)
        #expect(inputs.areUnchanged(digests: &again))
    }

    @Test func inputsThatGainOrLoseAFileHaveChanged() throws {
        let disk = InMemoryFileSystem()
        disk.write("/a", "a")
        var atStart = FileDigests(known: [:], fileSystem: disk)
        let inputs = InputsAtStart(["/a", "/b"], digests: &atStart)
        disk.write("/b", "b")
        var atEnd = FileDigests(known: [:], fileSystem: disk)
        #expect(!inputs.areUnchanged(digests: &atEnd))
    }

    // MARK: The rule by which a task's work is kept

    static let built = TaskRecord(
        fingerprint: TaskFingerprint(definition: "d", environment: "e", inputs: "i", needs: "n"), outputs: "o")

    @Test func aTaskIsKeptOnlyWithItsFingerprintAndItsOutputsAsTheyWereAtItsSuccess() {
        let same = Self.built.fingerprint
        #expect(UpToDateCheck.reasonToRun(recorded: Self.built, fingerprint: same) { ("o", []) } == nil)
        #expect(UpToDateCheck.reasonToRun(recorded: TaskRecord?.none, fingerprint: same) { ("o", []) } == RunReason(.neverRan))
        #expect(
            UpToDateCheck.reasonToRun(recorded: Self.built, fingerprint: same) { ("o", ["/out", "/log"]) }
                == RunReason(.missingOutput, path: ReasonPath(path: "/out", pattern: "/out")))
        #expect(UpToDateCheck.reasonToRun(recorded: Self.built, fingerprint: same) { ("edited", []) } == RunReason(.changedOutput))
        var changed = same
        changed.inputs = "i2"
        #expect(UpToDateCheck.reasonToRun(recorded: Self.built, fingerprint: changed) { ("o", []) }?.description == "changed input")
    }

    // MARK: Which file changed (`--dry-run`)

    /// Three inputs recorded by a run, then the disk as a later `--dry-run` finds it.
    func recordedInputs(_ paths: [String]) throws -> (disk: InMemoryFileSystem, known: [String: FileRecord]) {
        let disk = InMemoryFileSystem()
        for path in paths { disk.write(path, "first " + path) }
        disk.advance(seconds: 10)
        var known: [String: FileRecord] = [:]
        for path in paths { known[path] = try record(path, on: disk) }
        disk.advance(seconds: 10)
        return (disk, known)
    }

    @Test func theFirstChangedFileIsNamedInTheOrderOfThePatterns() throws {
        let (disk, known) = try recordedInputs(["/w/a", "/w/b", "/w/c"])
        disk.write("/w/c", "edited")
        disk.write("/w/b", "edited")
        var digests = FileDigests(known: known, fileSystem: disk)
        #expect(digests.firstChange(inPatterns: ["/w/a", "/w/b", "/w/c"]) == ReasonPath(path: "/w/b", pattern: "/w/b"))
        var reversed = FileDigests(known: known, fileSystem: disk)
        #expect(reversed.firstChange(inPatterns: ["/w/c", "/w/b"]) == ReasonPath(path: "/w/c", pattern: "/w/c"))
    }

    /// Touched, the same contents: not a change, so not named.
    @Test func aFileRewrittenWithTheSameContentsIsNotNamed() throws {
        let (disk, known) = try recordedInputs(["/w/a", "/w/b"])
        disk.write("/w/a", "first /w/a")
        disk.write("/w/b", "edited")
        var digests = FileDigests(known: known, fileSystem: disk)
        #expect(digests.firstChange(inPatterns: ["/w/a", "/w/b"])?.path == "/w/b")
    }

    @Test func aFileNewUnderAGlobIsNamedWithItsPattern() throws {
        let (disk, known) = try recordedInputs(["/w/parts/1", "/w/parts/3"])
        disk.write("/w/parts/2", "new")
        var digests = FileDigests(known: known, fileSystem: disk)
        #expect(digests.firstChange(inPatterns: ["/w/parts/*"]) == ReasonPath(path: "/w/parts/2", pattern: "/w/parts/*"))
    }

    /// The log keeps no list of the files a glob named: one gone is told by its pattern.
    @Test func aFileGoneFromUnderAGlobIsToldByThePattern() throws {
        let (disk, known) = try recordedInputs(["/w/one", "/w/parts/1", "/w/parts/2"])
        disk.remove("/w/parts/2")
        var digests = FileDigests(known: known, fileSystem: disk)
        #expect(
            digests.firstChange(inPatterns: ["/w/one", "/w/parts/*"])
                == ReasonPath(path: "/w/parts/*", pattern: "/w/parts/*", isWholePattern: true))
        // Plain paths whose files all match their records: nothing to name.
        var plain = FileDigests(known: known, fileSystem: disk)
        #expect(plain.firstChange(inPatterns: ["/w/one", "/w/parts/1"]) == nil)
    }

    /// What a run record keeps for `--resume` changes with the outputs as with the fingerprint.
    @Test func theResumeKeyCoversTheOutputs() {
        var edited = Self.built
        edited.outputs = "edited"
        #expect(edited.resumeKey != Self.built.resumeKey)
        var changed = Self.built
        changed.fingerprint.needs = "n2"
        #expect(changed.resumeKey != Self.built.resumeKey)
        #expect(Self.built.resumeKey == TaskRecord(fingerprint: Self.built.fingerprint, outputs: "o").resumeKey)
    }
}
