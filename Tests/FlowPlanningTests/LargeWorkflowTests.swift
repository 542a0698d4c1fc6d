import FlowLoading
import FlowModel
import FlowPlanning
import Testing

/// Files large enough to be decoded and planned on every core, a chunk of tasks at a time
/// (`ChunkedWork`): the result must read as if one thread had gone through the tasks.
@Suite struct LargeWorkflowTests {
    static let taskCount = 20_000

    /// `t0` .. `t{n-1}` in blocks of 50: each task of a block needs the last task of the block
    /// before (so block b is wave b + 1, 400 waves), with `replacing` swapping in other lines by
    /// task number.
    func workflow(replacing lines: [Int: String] = [:]) -> String {
        var text = "version: 1\nenv: {HOST: example.org}\ntasks:\n"
        for index in 0..<Self.taskCount {
            if let line = lines[index] {
                text += line + "\n"
            } else if index < 50 {
                text += "  t\(index): {shell: [\"true\"]}\n"
            } else {
                text += "  t\(index): {needs: [t\(index - index % 50 - 1)], shell: [\"true\"]}\n"
            }
        }
        return text
    }

    func load(_ text: String) -> LoadedWorkflow {
        WorkflowLoader.decode(Array(text.utf8), file: "big.yaml", directory: "/work", defaultName: "big")
    }

    /// The problems planning finds in `workflow(replacing:)`, which loads without any; no plan.
    func planningProblems(replacing lines: [Int: String]) throws -> [Diagnostic] {
        let loaded = load(workflow(replacing: lines))
        #expect(loaded.diagnostics.isEmpty)
        let workflow = try #require(loaded.workflow)
        let result = try Planner.plan(workflow, options: PlanningOptions())
        #expect(result.plan == nil)
        return result.diagnostics
    }

    /// Line of task `index` in `workflow()`: three lines come before the first task.
    func line(ofTask index: Int) -> Int { index + 4 }

    @Test func problemsInEveryChunkAreReportedOnceInFileOrder() throws {
        let loaded = load(
            workflow(replacing: [
                5: "  t5: {needs: [t4], shell: [\"true\"], retires: 2}",
                9_999: "  t9999: {needs: [t9998], shell: [\"true\"], retries: -1}",
                19_998: "  bad id: {needs: [t19997], shell: [\"true\"]}",
            ]))
        let found = loaded.diagnostics.map { "\($0.location.line):\($0.location.column): \($0.message.text)" }
        #expect(
            found == [
                "\(line(ofTask: 5)):38: unknown key 'retires' in task 't5'",
                "\(line(ofTask: 9_999)):53: 'retries' of task 't9999' must be at least 0, found -1",
                "\(line(ofTask: 19_998)):3: invalid task id 'bad id': use 1 to 64 of the characters A-Z a-z 0-9 _ . -",
            ])
        // Each task is still decoded (so that needing it is no further error), in file order.
        let workflow = try #require(loaded.workflow)
        var ids = (0..<Self.taskCount).map { "t\($0)" }
        ids[19_998] = "bad id"
        #expect(workflow.tasks.map(\.id) == ids)
    }

    @Test func aLargePlanHasEveryTaskInOrderWithItsWaveAndNeeds() throws {
        // Each task needs earlier ones only, so the order is the file's.
        let loaded = load(
            workflow(replacing: [
                12_345: "  t12345: {needs: [t12344], download: {url: \"https://${HOST}/f\", to: \"out/f\"}}"
            ]))
        #expect(loaded.diagnostics.isEmpty)
        let workflow = try #require(loaded.workflow)
        let plan = try #require(try Planner.plan(workflow, options: PlanningOptions()).plan)
        #expect(plan.tasks.map(\.id) == (0..<Self.taskCount).map { "t\($0)" })
        var waves = (0..<Self.taskCount).map { $0 / 50 + 1 }
        waves[12_345] += 1  // it needs t12344, of its own block
        #expect(plan.tasks.map(\.wave) == waves)
        #expect(plan.waveCount == 400)
        #expect(plan.tasks[7_777].needs == [7_749])
        #expect(plan.tasks[12_345].needs == [12_344])
        guard case .download(let download) = plan.tasks[12_345].action else { Issue.record("not a download"); return }
        #expect(download.url.value == "https://example.org/f")
        #expect(download.to.value == "/work/out/f")
    }

    @Test func aTaskLeftOutInAMiddleChunkLeavesTheOthersInOrder() throws {
        // No action: the task is reported and not decoded, so its chunk adds one task fewer.
        let loaded = load(workflow(replacing: [7_000: "  t7000: {description: nothing to do}"]))
        #expect(
            loaded.diagnostics.map(\.message.text) == [
                "task 't7000' has no action: give exactly one of shell, download, decompress, combine, or 'needs' to group other tasks"
            ])
        let workflow = try #require(loaded.workflow)
        #expect(workflow.tasks.map(\.id) == (0..<Self.taskCount).filter { $0 != 7_000 }.map { "t\($0)" })
        #expect(loaded.declaredTaskIDs.count == Self.taskCount)
    }

    @Test func aProblemReachedFromSeveralChunksThroughAnAliasIsReportedOnce() throws {
        let loaded = load(
            workflow(replacing: [
                3: "  t3: {download: &release {url: \"https://example.org/a\", to: a, sha256: abc}}",
                15_000: "  t15000: {download: *release}",
            ]))
        #expect(loaded.diagnostics.map { "\($0.location.line):\($0.location.column)" } == ["\(line(ofTask: 3)):73"])
        #expect(loaded.diagnostics.map(\.message.text) == ["invalid sha256 'abc': expected 64 hexadecimal digits"])
    }

    @Test func unknownNeedsInEveryChunkAreAllReported() throws {
        let diagnostics = try planningProblems(replacing: [
            42: "  t42: {needs: [t41, nope], shell: [\"true\"]}",
            17_000: "  t17000: {needs: [gone], shell: [\"true\"]}",
        ])
        #expect(diagnostics.map(\.location.line) == [line(ofTask: 42), line(ofTask: 17_000)])
        #expect(
            diagnostics.map(\.message.text) == [
                "task 't42' needs 'nope', which is not a task in this file",
                "task 't17000' needs 'gone', which is not a task in this file",
            ])
    }

    @Test func undefinedVariablesInEveryChunkAreAllReported() throws {
        let diagnostics = try planningProblems(replacing: [
            100: "  t100: {download: {url: \"https://${HOST}/a\", to: \"${NOPE}/a\"}}",
            19_000: "  t19000: {download: {url: \"https://${HOTS}/b\", to: \"b\"}}",
        ])
        #expect(diagnostics.map(\.location.line) == [line(ofTask: 100), line(ofTask: 19_000)])
        #expect(
            diagnostics.map(\.message.text) == [
                "undefined variable 'NOPE' in 'to' of task 't100'",
                "undefined variable 'HOTS' in 'url' of task 't19000'",
            ])
    }
}
