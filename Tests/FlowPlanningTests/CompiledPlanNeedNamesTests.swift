import FlowLoading
import FlowModel
import FlowPlanning
import Testing

/// A run's read of the compiled plan without the specs' `needs` (`keepingNeedNames: false`, every
/// run but `--only`): the names are left out, nothing else; and a plan with needs taken as done,
/// whose `--only` check reads them, is never read so.
@Suite struct CompiledPlanNeedNamesTests {
    let compiled = CompiledPlanTests()

    func readForRun(_ bytes: [UInt8], keepingNeedNames: Bool) throws -> Plan {
        try bytes.withUnsafeBytes { (raw) throws(CompiledPlanError) in
            try Plan(compiled: raw, keepingFileTasks: false, keepingNeedNames: keepingNeedNames)
        }
    }

    @Test func aRunsReadWithoutNeedNamesDiffersOnlyInTheSpecsNeeds() throws {
        for plan in [try compiled.plan(CompiledPlanTests.everything), try compiled.plan(CompiledPlanTests.everything, targets: ["pics"])] {
            #expect(plan.tasks.contains { !$0.spec.needs.isEmpty }, "the test covers needs")
            let with = try readForRun(plan.compiled, keepingNeedNames: true)
            let without = try readForRun(plan.compiled, keepingNeedNames: false)
            #expect(without.tasks.allSatisfy { $0.spec.needs.isEmpty })
            #expect(without.tasks.count == with.tasks.count && without.takenAsDone.isEmpty)
            for (now, was) in zip(without.tasks, with.tasks) {
                var spec = was.spec
                spec.needs = []
                #expect(now.spec == spec && now.needs == was.needs && now.wave == was.wave && now.fileIndex == was.fileIndex)
                #expect(now.action == was.action && now.inputs == was.inputs && now.outputs == was.outputs)
                #expect(now.environment == was.environment && now.workdir == was.workdir && now.arguments == was.arguments)
            }
            #expect(without.workflow == with.workflow && without.concurrency == with.concurrency && without.waveCount == with.waveCount)
        }
    }

    /// `--only`'s plan: its needs taken as done are found by the specs' names, so a read
    /// without them is no plan (the run then plans again), and one with them has them.
    @Test func aPlanWithNeedsTakenAsDoneIsNoPlanWithoutNeedNames() throws {
        let loaded = WorkflowLoader.decode(Array(CompiledPlanTests.everything.utf8), file: "w.yaml", directory: "/work", defaultName: "w")
        var options = PlanningOptions()
        options.targets = ["pics", "pack"]
        options.onlyTargets = true
        options.processEnvironment = ["GH_TOKEN": "ghp_1"]
        let workflow = try #require(loaded.workflow)
        let only = try #require(try Planner.plan(workflow, options: options).plan)
        #expect(!only.takenAsDone.isEmpty)
        #expect(throws: CompiledPlanError.self) { try readForRun(only.compiled, keepingNeedNames: false) }
        let read = try readForRun(only.compiled, keepingNeedNames: true)
        #expect(OnlySelection.requiredOutputs(of: read) == OnlySelection.requiredOutputs(of: only))
    }

    /// The names stepped over are still checked: bytes cut short or followed by more are no plan.
    @Test func bytesCutShortAreNeverAPlanWithoutNeedNames() throws {
        let bytes = try compiled.plan(CompiledPlanTests.everything).compiled
        for length in 0..<bytes.count {
            #expect(throws: CompiledPlanError.self) { try readForRun(Array(bytes.prefix(length)), keepingNeedNames: false) }
        }
        #expect(throws: CompiledPlanError.self) { try readForRun(bytes + [0], keepingNeedNames: false) }
    }

    /// Each byte changed in turn: what the read without names makes of the bytes is what the
    /// run's read with them makes, less the names, whenever both take them as a plan.
    @Test func aChangedByteReadWithoutNeedNamesIsNoOtherPlan() throws {
        let bytes = try compiled.plan("version: 1\ntasks:\n  a: {shell: echo a, outputs: [o]}\n  b: {needs: a, shell: [cat, o]}\n").compiled
        for index in bytes.indices {
            for change: UInt8 in [1, 0x7f, 0x80] {
                var damaged = bytes
                damaged[index] ^= change
                guard let without = try? readForRun(damaged, keepingNeedNames: false), let with = try? readForRun(damaged, keepingNeedNames: true)
                else { continue }
                let names = with.tasks.map { task in
                    var spec = task.spec
                    spec.needs = []
                    return spec
                }
                #expect(without.tasks.map(\.spec) == names, "byte \(index) ^ \(change)")
                #expect(without.tasks.map(\.needs) == with.tasks.map(\.needs), "byte \(index) ^ \(change)")
            }
        }
    }
}
