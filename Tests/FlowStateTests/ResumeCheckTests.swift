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
}
