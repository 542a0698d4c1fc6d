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

    /// A group need stands for its needs (and a group among them for its own), as a phony
    /// target for its prerequisites: their outputs are required, except those of a need that
    /// is selected (it runs here), a continue_on_error one, or behind a group whose `when` is
    /// not success (its needs may have failed).
    @Test func aGroupNeedIsLookedThroughToWhatItStandsFor() throws {
        let loaded = WorkflowLoader.decode(
            Array(
                """
                version: 1
                tasks:
                  fetch: {download: {url: "https://example.com/a.tgz", to: out/a.tgz}}
                  gen: {shell: "true", outputs: [out/gen.txt]}
                  lint: {shell: "true", continue_on_error: true, outputs: [out/lint.txt]}
                  deps: {needs: [fetch, lint]}
                  all: {needs: [deps, gen]}
                  anyway: {needs: [gen], when: always}
                  ship: {needs: [all, anyway], shell: "true"}
                """.utf8), file: "w.yaml", directory: "/work", defaultName: "w")
        let workflow = try #require(loaded.workflow)
        func required(_ targets: [TaskID]) throws -> [String] {
            var options = PlanningOptions()
            options.targets = targets
            options.onlyTargets = true
            let plan = try #require(try Planner.plan(workflow, options: options).plan)
            return OnlySelection.requiredOutputs(of: plan).map { "\($0.task) \($0.need) \($0.path)" }
        }
        #expect(try required(["ship"]) == ["ship fetch /work/out/a.tgz", "ship gen /work/out/gen.txt"])
        #expect(try required(["ship", "gen"]) == ["ship fetch /work/out/a.tgz"])
        // And a named need behind a group is still waited for: ship runs after gen.
        var options = PlanningOptions()
        options.targets = ["ship", "gen"]
        options.onlyTargets = true
        let plan = try #require(try Planner.plan(workflow, options: options).plan)
        #expect(plan.tasks.map(\.id) == ["gen", "ship"])
        #expect(plan.tasks.map(\.needs) == [[], [0]])
        #expect(plan.tasks.map(\.wave) == [1, 2])
    }

    @Test func anUnknownTaskIsRefusedWithADidYouMean() throws {
        #expect(throws: PlanningError.unknownTarget("biuld", suggestion: "build")) { try plan(["biuld"]) }
    }
}
