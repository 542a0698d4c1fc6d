import FlowModel
import FlowPlanning
import FlowTestSupport
import Foundation
import Testing

@testable import FlowState

/// What `ResumeCheck` keeps of each task for the record (`fingerprint(of:)`, its resume key),
/// now that the engine's step only reads the files and the hashing waits until the record asks.
@Suite struct ResumeCheckTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("resume-check-\(UUID().uuidString)").path

    func planned(_ tasks: String) throws -> Plan {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return try PlannedTasks.plan("version: 1\ntasks:\n" + tasks, directory: folder)
    }

    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/" + name))
    }

    /// Each task of `plan` succeeds, in order, and each key is asked for right after.
    func keysAskedAtOnce(_ plan: Plan) -> [String?] {
        let check = ResumeCheck(plan: plan, inner: nil, resumed: nil)
        return plan.tasks.indices.map { index in
            check.taskSucceeded(index)
            return check.fingerprint(of: plan.tasks[index].id)
        }
    }

    @Test func aTasksKeyIsWhatItLeftAtItsSuccessThoughTakenWhenAskedFor() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plan = try planned("  make: {inputs: [in.txt], outputs: [out.txt], shell: \"true\"}\n")
        try write("in.txt", "source")
        try write("out.txt", "first")
        let atOnce = keysAskedAtOnce(plan)

        let later = ResumeCheck(plan: plan, inner: nil, resumed: nil)
        later.taskSucceeded(0)
        // Changed after the success, before the record asks: the key is still the success's.
        try write("in.txt", "edited")
        try write("out.txt", "second")
        #expect(later.fingerprint(of: "make") == atOnce[0])
        #expect(atOnce[0] != nil)
        #expect(keysAskedAtOnce(plan)[0] != atOnce[0], "the files enter the key")
    }

    @Test func aDependentsKeyTakesItsNeedsFingerprintWhateverOrderTheyAreAskedIn() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plan = try planned(
            """
              build: {shell: "make"}
              test: {needs: [build], shell: "make test"}
              ship: {needs: [build, test], shell: "make ship"}

            """)
        let atOnce = keysAskedAtOnce(plan)
        #expect(Set(atOnce.compactMap { $0 }).count == 3)

        let asked = ResumeCheck(plan: plan, inner: nil, resumed: nil)
        for index in plan.tasks.indices { asked.taskSucceeded(index) }
        // The last first: its needs' fingerprints are taken before its own.
        #expect(asked.fingerprint(of: "ship") == atOnce[2])
        #expect(asked.fingerprint(of: "build") == atOnce[0])
        #expect(asked.fingerprint(of: "test") == atOnce[1])

        let changedNeed = try planned(
            """
              build: {shell: "make all"}
              test: {needs: [build], shell: "make test"}
              ship: {needs: [build, test], shell: "make ship"}

            """)
        #expect(keysAskedAtOnce(changedNeed)[2] != atOnce[2], "a need's fingerprint enters its dependents' keys")
    }

    @Test func aTaskThatDidNotSucceedHasNoKeyAndItsDependentsTakeNoneForIt() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plan = try planned(
            """
              lint: {shell: "lint"}
              report: {needs: [lint], when: always, shell: "report"}

            """)
        let check = ResumeCheck(plan: plan, inner: nil, resumed: nil)
        check.taskSucceeded(1)  // lint failed: the engine reports no success for it
        #expect(check.fingerprint(of: "lint") == nil)
        let report = try #require(check.fingerprint(of: "report"))
        #expect(report != keysAskedAtOnce(plan)[1], "the need's fingerprint is 'none', not the one it would have had")
    }

    /// In a workflow that declares no files, the values and keys a run took are kept with the
    /// compiled plan (`planFingerprints`) for the tasks whose needs all succeeded, and a later run
    /// that reads them gives each task the same key without hashing; a task whose need failed
    /// there, or fails now, gets its key taken as before ("none" for that need).
    @Test func theKeysKeptWithThePlanAreTheKeysARunTakesAndOnlyWhereEveryNeedSucceeded() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plan = try planned(
            """
              build: {shell: "make"}
              test: {needs: [build], shell: "make test"}
              lint: {shell: "lint"}
              ship: {needs: [test, lint], shell: "make ship"}
              report: {needs: [lint], when: always, shell: "report"}

            """)
        let taken = keysAskedAtOnce(plan)
        // The first run: lint fails, so ship is skipped, and report takes "none" for lint.
        let first = ResumeCheck(plan: plan, inner: nil, resumed: nil)
        for index in [0, 1, 4] { first.taskSucceeded(index) }
        let firstKeys = plan.tasks.map { first.fingerprint(of: $0.id) }
        let kept = try #require(first.planFingerprints)
        #expect(kept.key(at: 0) == taken[0])
        #expect(kept.key(at: 1) == taken[1])
        #expect(kept.key(at: 2) == nil && kept.key(at: 3) == nil)
        #expect(kept.key(at: 4) == nil && kept.value(at: 4) == nil, "its need failed: its key depends on that run")
        #expect(firstKeys[4] != nil && firstKeys[4] != taken[4])

        // A later run that reads them: every task succeeds; each key as taken afresh.
        let later = ResumeCheck(plan: plan, inner: nil, resumed: nil, fingerprints: kept)
        let laterKeys = plan.tasks.indices.map { index in
            later.taskSucceeded(index)
            return later.fingerprint(of: plan.tasks[index].id)
        }
        #expect(laterKeys == taken)

        // The kept entries are what that run reads: a key changed there is the key recorded.
        let planted = String(repeating: "ab", count: 32)
        let changed = PlanFingerprints(
            plan.tasks.indices.map { index in
                index == 1 ? (value: taken[0]!, key: planted) : kept.value(at: index).map { (value: $0, key: kept.key(at: index)!) }
            })
        let fromChanged = ResumeCheck(plan: plan, inner: nil, resumed: nil, fingerprints: changed)
        for index in [0, 1] { fromChanged.taskSucceeded(index) }
        #expect(fromChanged.fingerprint(of: "test") == planted)

        // A run where build fails: test's key is not taken from the plan ("none" for build).
        let failed = ResumeCheck(plan: plan, inner: nil, resumed: nil, fingerprints: changed)
        failed.taskSucceeded(1)
        #expect(failed.fingerprint(of: "test") != planted)
        #expect(failed.fingerprint(of: "test") != taken[1])
    }

    @Test func aResumedRunKeepsWhatIsUnchangedAndRunsWhatChanged() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tasks = """
              build: {shell: "make"}
              test: {needs: [build], shell: "make test"}

            """
        let first = try planned(tasks)
        let keys = keysAskedAtOnce(first)
        let recorded = ResumeCheck.Resumed(
            run: "20261126-220000-000",
            tasks: [
                "build": RecordedTask(state: .succeeded, fingerprint: keys[0]),
                "test": RecordedTask(state: .succeeded, fingerprint: keys[1]),
            ])

        let same = ResumeCheck(plan: first, inner: nil, resumed: recorded)
        #expect(same.skipReason(for: 0) == SkipReason.doneBefore)
        #expect(same.skipReason(for: 1) == SkipReason.doneBefore)
        #expect(same.fingerprint(of: "test") == keys[1])

        let edited = try planned(tasks.replacingOccurrences(of: "make test", with: "make check"))
        let changed = ResumeCheck(plan: edited, inner: nil, resumed: recorded)
        #expect(changed.skipReason(for: 0) == SkipReason.doneBefore)
        #expect(changed.skipReason(for: 1) == nil)
        changed.taskSucceeded(1)
        #expect(changed.fingerprint(of: "test") == keysAskedAtOnce(edited)[1])
    }
    /// A resumed task with no files to hash (no inputs or outputs: a graph of small tasks) is
    /// decided at once, as before the check could finish off the loop: decided later, the
    /// skips came back from the concurrent hashing queue in any order, and held each slot for
    /// a round trip. A task with files is still hashed off the loop, and decided the same.
    @Test func aResumedTaskWithNoFilesIsDecidedAtOnceAndOneWithFilesLater() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plan = try planned(
            """
              build: {shell: "make"}
              test: {needs: [build], shell: "make test", inputs: [in.txt]}

            """)
        try write("in.txt", "source")
        let keys = keysAskedAtOnce(plan)
        let recorded = ResumeCheck.Resumed(
            run: "20261126-220000-000",
            tasks: [
                "build": RecordedTask(state: .succeeded, fingerprint: keys[0]),
                "test": RecordedTask(state: .succeeded, fingerprint: keys[1]),
            ])
        let check = ResumeCheck(plan: plan, inner: nil, resumed: recorded)
        #expect(check.check(0) { _ in Issue.record("decided now, not later") } == .now(SkipReason.doneBefore))
        let decided = Decided()
        #expect(check.check(1) { decided.take($0) } == .later)
        #expect(decided.wait() == SkipReason.doneBefore)
        #expect(check.fingerprint(of: "test") == keys[1])
    }

    /// Once the run is being cancelled (`stopChecks()`), a task the resumed run says succeeded
    /// runs (it is not started unless as cleanup) with nothing hashed: its files were hashed
    /// whole first, on a queue the up-to-date check's end waits for when it decides there, so a
    /// Ctrl-C during `--resume` waited for a large input's whole hash.
    @Test func aCheckAfterTheCancelHashesNothing() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plan = try planned("  make: {inputs: [in.txt], outputs: [out.txt], shell: \"true\"}\n")
        try write("in.txt", "source")
        try write("out.txt", "made")
        let keys = keysAskedAtOnce(plan)
        let recorded = ResumeCheck.Resumed(
            run: "20261126-220000-000", tasks: ["make": RecordedTask(state: .succeeded, fingerprint: keys[0])])
        let check = ResumeCheck(plan: plan, inner: nil, resumed: recorded)
        check.stopChecks()
        #expect(check.check(0) { _ in Issue.record("decided now, not later") } == .now(nil))
    }

    /// A task the up-to-date check tracks leaves its fingerprint and record in that check, not
    /// in the resume check: its key, and that of a dependent it does not track, are the same
    /// when the resume check takes them alone, in the run where the task ran, and in the next,
    /// where it was up to date. A tracked task that failed has none.
    @Test func aTrackedTasksKeyIsTheSameWhetherItRanOrWasUpToDate() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plan = try planned(
            """
              make: {inputs: [in.txt], outputs: [out.txt], shell: "true"}
              after: {needs: [make], shell: "true"}
              broken: {inputs: [in.txt], outputs: [other.txt], shell: "false"}

            """)
        try write("in.txt", "source")
        try write("out.txt", "made")
        let alone = ResumeCheck(plan: plan, inner: nil, resumed: nil)
        alone.taskSucceeded(0)
        alone.taskSucceeded(1)
        let expected = plan.tasks.map { alone.fingerprint(of: $0.id) }
        #expect(expected[0] != nil && expected[1] != nil && expected[2] == nil)

        /// One run with the up-to-date check over the state folder: `broken` fails.
        func run() -> (keys: [String?], upToDate: [Bool]) {
            let states = TaskStates(folder: StateFolder(path: folder + "/.flowrun"), workflowFile: folder + "/flow.yaml")
            let inner = UpToDateCheck(plan: plan, states: states, force: false)
            let check = ResumeCheck(plan: plan, inner: inner, resumed: nil)
            var upToDate: [Bool] = []
            for index in plan.tasks.indices {
                let skipped = check.skipReason(for: index) != nil
                upToDate.append(skipped)
                if !skipped, index != 2 { check.taskSucceeded(index) }
            }
            inner.finish()
            return (plan.tasks.map { check.fingerprint(of: $0.id) }, upToDate)
        }
        let ran = run()
        #expect(ran.upToDate == [false, false, false])
        #expect(ran.keys == expected)
        let kept = run()
        #expect(kept.upToDate == [true, false, false])
        #expect(kept.keys == expected)
    }

    /// The definition digests kept with the compiled plan stand in for taking them: the keys are
    /// the same bytes; and the digests the check hands to the cache cover every task, those
    /// that ran and those that did not, as taken from the plan.
    @Test func keptDefinitionDigestsGiveTheSameKeysAndEveryTasksDigestsAreHandedOn() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plan = try planned(
            """
              build: {shell: "make", env: {CC: clang}}
              test: {needs: [build], shell: "make test"}
              ship: {needs: [build, test], shell: ["make", "ship"]}

            """)
        let expected = keysAskedAtOnce(plan)
        let fresh = DefinitionDigests.of(plan.tasks)

        let kept = ResumeCheck(plan: plan, inner: nil, resumed: nil, definitions: fresh)
        for index in plan.tasks.indices { kept.taskSucceeded(index) }
        #expect(plan.tasks.map { kept.fingerprint(of: $0.id) } == expected)
        #expect(kept.definitionDigests.items.map(\.definition) == fresh.items.map(\.definition))
        // They are what the keys are made of: those of an edited plan give its keys.
        let edited = try planned(
            """
              build: {shell: "make all", env: {CC: gcc}}
              test: {needs: [build], shell: "make check"}
              ship: {needs: [build, test], shell: ["make", "dist"]}

            """)
        let editedKeys = keysAskedAtOnce(edited)
        let stale = ResumeCheck(plan: plan, inner: nil, resumed: nil, definitions: DefinitionDigests.of(edited.tasks))
        for index in plan.tasks.indices { stale.taskSucceeded(index) }
        #expect(plan.tasks.map { stale.fingerprint(of: $0.id) } == editedKeys)
        #expect(editedKeys != expected)

        // Only `build` ran: the others' digests are taken when handed on.
        let partly = ResumeCheck(plan: plan, inner: nil, resumed: nil)
        partly.taskSucceeded(0)
        #expect(partly.fingerprint(of: "build") == expected[0])
        let handed = partly.definitionDigests
        #expect(handed.items.map(\.definition) == fresh.items.map(\.definition))
        #expect(handed.items.map(\.environment) == fresh.items.map(\.environment))
        #expect(Set(handed.items.map(\.definition)).count == 3)
    }

    /// Kept digests that do not fit the plan (another count of tasks) are not used.
    @Test func keptDefinitionDigestsOfAnotherPlanAreLeftAside() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plan = try planned("  a: {shell: \"true\"}\n  b: {needs: [a], shell: \"true\"}\n")
        let other = try planned("  a: {shell: \"false\"}\n")
        let expected = keysAskedAtOnce(plan)
        let check = ResumeCheck(plan: plan, inner: nil, resumed: nil, definitions: DefinitionDigests.of(other.tasks))
        for index in plan.tasks.indices { check.taskSucceeded(index) }
        #expect(plan.tasks.map { check.fingerprint(of: $0.id) } == expected)
    }

    /// The reason a check decided later, from the hashing queue.
    final class Decided: @unchecked Sendable {
        private let lock = NSLock()
        private let done = DispatchSemaphore(value: 0)
        private var reason: String?

        func take(_ reason: String?) {
            lock.withLock { self.reason = reason }
            done.signal()
        }

        func wait() -> String? {
            done.wait()
            return lock.withLock { reason }
        }
    }
}
