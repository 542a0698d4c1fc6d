import FlowLoading
import FlowModel
import FlowPlanning
import Testing

/// `run --only`: exactly the named tasks, their needs taken as done.
@Suite struct OnlySelectionTests {
    static let workflow = """
        version: 1
        tasks:
          fetch: {download: {url: "https://example.com/a.tgz", to: out/a.tgz}}
          unpack: {needs: fetch, decompress: {from: out/a.tgz, to: out/a}}
          gen: {shell: "true", outputs: [out/gen.txt, "out/parts/*.txt"]}
          lint: {shell: "true", continue_on_error: true, outputs: [out/lint.txt]}
          build: {needs: [unpack, gen, lint], shell: "true"}
          hint: {needs: [build], when: failure, shell: "true"}
          report: {needs: [build, gen], when: always, shell: "true"}
        """

    func plan(_ targets: [TaskID]) throws -> Plan {
        let loaded = WorkflowLoader.decode(Array(Self.workflow.utf8), file: "w.yaml", directory: "/work", defaultName: "w")
        #expect(loaded.diagnostics.isEmpty, "\(loaded.diagnostics)")
        var options = PlanningOptions()
        options.targets = targets
        options.onlyTargets = true
        let workflow = try #require(loaded.workflow)
        return try #require(try Planner.plan(workflow, options: options).plan)
    }

    @Test func onlyTheNamedTasksArePlannedAndTheirOtherNeedsAreTakenAsDone() throws {
        let plan = try plan(["build"])
        #expect(plan.tasks.map(\.id) == ["build"])
        #expect(plan.tasks[0].needs.isEmpty)
        #expect(plan.tasks[0].wave == 1)
        #expect(plan.takenAsDone.map(\.id) == ["unpack", "gen", "lint"])
    }

    @Test func needsBetweenNamedTasksStay() throws {
        let plan = try plan(["hint", "build", "fetch"])
        #expect(plan.tasks.map(\.id) == ["fetch", "build", "hint"])
        #expect(plan.tasks.map(\.needs) == [[], [], [1]])
        #expect(plan.tasks.map(\.wave) == [1, 1, 2])
        // hint still waits for build's failure inside the run.
        #expect(plan.tasks[2].spec.when == .failure)
        #expect(plan.takenAsDone.map(\.id) == ["unpack", "gen", "lint"])
    }

    @Test func aFailureTaskWithEveryNeedTakenAsDoneRunsTheCallerHasJudgedItsWhen() throws {
        let plan = try plan(["hint"])
        #expect(plan.tasks.map(\.id) == ["hint"])
        #expect(plan.tasks[0].spec.when == .always)
    }

    @Test func requiredOutputsAreTheDeclaredOutputsOrTheActionsTo() throws {
        let required = OnlySelection.requiredOutputs(of: try plan(["build"]))
        #expect(
            required == [
                .init(task: "build", need: "unpack", path: "/work/out/a"),
                .init(task: "build", need: "gen", path: "/work/out/gen.txt"),
                .init(task: "build", need: "gen", path: "/work/out/parts/*.txt"),
            ])
    }

    @Test func failureAndAlwaysTasksRequireNothingTheirNeedsMayHaveFailed() throws {
        #expect(OnlySelection.requiredOutputs(of: try plan(["hint"])).isEmpty)
        #expect(OnlySelection.requiredOutputs(of: try plan(["report"])).isEmpty)
    }

    @Test func anUnknownTaskIsRefusedWithADidYouMean() throws {
        #expect(throws: PlanningError.unknownTarget("biuld", suggestion: "build")) { try plan(["biuld"]) }
    }
}
