import FlowLoading
import FlowModel
import FlowPlanning
import Testing

@Suite struct PlannerTests {
    /// Plans `text` as if it were `/work/w.yaml`, or records its diagnostics.
    func plan(_ text: String, targets: [TaskID] = [], environment: [String: String] = [:]) throws -> PlanResult {
        let loaded = WorkflowLoader.decode(Array(text.utf8), file: "w.yaml", directory: "/work", defaultName: "w")
        #expect(loaded.diagnostics.isEmpty, "\(loaded.diagnostics)")
        var options = PlanningOptions()
        options.targets = targets
        options.processEnvironment = environment
        options.processorCount = 4
        return try Planner.plan(try #require(loaded.workflow), options: options)
    }

    func messages(_ result: PlanResult) -> [String] {
        result.diagnostics.map { "\($0.location.line):\($0.location.column): \($0.message.text)" }
    }

    /// Tasks written out of order: `d` needs `c` needs `b`; `a` and `e` need nothing.
    static let outOfOrder = """
        version: 1
        tasks:
          d: {needs: [c], shell: "true"}
          a: {shell: "true"}
          c: {needs: [b], shell: "true"}
          b: {shell: "true"}
          e: {shell: "true"}
        """

    @Test func orderIsTopologicalWithFileOrderAsTheTieBreak() throws {
        let result = try plan(Self.outOfOrder)
        let plan = try #require(result.plan)
        #expect(plan.tasks.map(\.id) == ["a", "b", "c", "d", "e"])
        #expect(plan.tasks.map(\.wave) == [1, 1, 2, 3, 1])
        #expect(plan.waves.map { $0.map(\.id) } == [["a", "b", "e"], ["c"], ["d"]])
        #expect(plan.concurrency == 4)
    }

    @Test func selectionTakesTheTargetsAndEverythingTheyNeed() throws {
        let text = """
            version: 1
            tasks:
              fetch: {shell: "true"}
              unpack: {needs: fetch, shell: "true"}
              docs: {shell: "true"}
              install: {needs: [unpack], shell: "true"}
            """
        #expect(try plan(text, targets: ["install"]).plan?.tasks.map(\.id) == ["fetch", "unpack", "install"])
        #expect(try plan(text, targets: ["docs", "unpack"]).plan?.tasks.map(\.id) == ["fetch", "unpack", "docs"])
        #expect(throws: PlanningError.unknownTarget("instal", suggestion: "install")) { try plan(text, targets: ["instal"]) }
    }

    @Test func aSelectionWithNeedsBelowKeepsTheOrderOfTheWholeFile() throws {
        let text = Self.outOfOrder
        #expect(try plan(text, targets: ["e", "d"]).plan?.tasks.map(\.id) == ["b", "c", "d", "e"])
        #expect(try plan(text, targets: ["c"]).plan?.tasks.map(\.wave) == [1, 2])
    }

    @Test func eachDistinctCycleIsReportedOnceWithItsPath() throws {
        let result = try plan(
            """
            version: 1
            tasks:
              a: {needs: [c], shell: "true"}
              b: {needs: [a], shell: "true"}
              c: {needs: [b], shell: "true"}
              x: {needs: [x], shell: "true"}
            """)
        #expect(result.plan == nil)
        #expect(messages(result).sorted() == ["3:15: dependency cycle: a -> c -> b -> a", "6:15: task 'x' needs itself"])
    }

    /// A matrix task naming itself in `needs` needs every combination of it: with 3 values,
    /// that gave 6 "dependency cycle" errors at the same place (`build[a] -> build[a]`,
    /// `build[a] -> build[b] -> build[a]`, ...). It is one error per entry naming the task, and
    /// a cycle elsewhere in the file is still reported with its path.
    @Test func aTaskNamingItselfInNeedsIsOneErrorPerEntry() throws {
        let result = try plan(
            """
            version: 1
            tasks:
              build:
                matrix: {os: [a, b, c]}
                needs: [fetch, build]
                shell: "true"
              fetch: {shell: "true"}
              lint: {needs: ['lint', test], shell: "true"}
              test: {needs: [lint], shell: "true"}
              pack:
                matrix: {os: [a, b]}
                needs: ['pack[b]']
                shell: "true"
            """)
        #expect(result.plan == nil)
        let byPlace = result.diagnostics.sortedByPosition()
        #expect(
            byPlace.map { "\($0.location.line):\($0.location.column): \($0.message.text)" } == [
                "5:20: task 'build' needs itself: a matrix task's `needs` names every combination of it",
                "8:18: task 'lint' needs itself",
                "8:26: dependency cycle: lint -> test -> lint",
                "12:13: task 'pack[b]' needs itself",
            ])
        #expect(result.diagnostics.allSatisfy { $0.message.hint == nil })
    }

    @Test func onlyTheFirstFiftyUnknownNeedsGetADidYouMean() throws {
        // 60 tasks, each needing a misspelt one: a hint costs a pass over every task id, so a
        // file with thousands of broken needs would otherwise take minutes.
        var text = "version: 1\ntasks:\n"
        for index in 0..<60 { text += "  task\(index): {needs: [tsak\(index)], shell: \"true\"}\n" }
        let result = try plan(text)
        #expect(result.diagnostics.count == 60)
        #expect(result.diagnostics.map(\.location.line) == Array(3...62))
        #expect(result.diagnostics.prefix(50).allSatisfy { $0.message.hint?.hasPrefix("did you mean 'task") == true })
        #expect(result.diagnostics.dropFirst(50).allSatisfy { $0.message.hint == nil })
        #expect(result.diagnostics[7].message.hint == "did you mean 'task7'?")
    }

    @Test func oneCycleThroughTenThousandTasksIsReportedOnceWithItsWholePath() throws {
        var text = "version: 1\ntasks:\n"
        for index in 0..<10_000 { text += "  t\(index): {needs: [t\((index + 9_999) % 10_000)], shell: \"true\"}\n" }
        let result = try plan(text)
        #expect(result.diagnostics.count == 1)
        let names = try #require(result.diagnostics.first?.message.text.split(separator: ": ", maxSplits: 1).last)
            .components(separatedBy: " -> ")
        #expect(names.count == 10_001)
        #expect(names.prefix(3) == ["t0", "t9999", "t9998"])
        #expect(names.last == "t0")
    }

    @Test func repeatedNeedsCountOnceInTheOrderFirstWritten() throws {
        // 40 needs, each written twice: more than the few that are checked by a scan.
        var text = "version: 1\ntasks:\n"
        for index in 0..<40 { text += "  t\(index): {shell: \"true\"}\n" }
        let written = (0..<40).reversed().map { "t\($0)" }
        text += "  all: {needs: [\(written.joined(separator: ", "))], shell: \"true\"}\n"
        // A file that repeats a need is refused (NeedsTests); a workflow made otherwise may.
        var workflow = try #require(WorkflowLoader.decode(Array(text.utf8), file: "w.yaml", directory: "/work", defaultName: "w").workflow)
        workflow.tasks[workflow.tasks.count - 1].needs += workflow.tasks[workflow.tasks.count - 1].needs
        var options = PlanningOptions()
        options.processorCount = 4
        let plan = try #require(try Planner.plan(workflow, options: options).plan)
        let all = try #require(plan.tasks.last)
        #expect(all.id == "all")
        #expect(all.needs.map { plan.tasks[$0].id } == written)
    }

    @Test func aLongChainNeedsNoDeepRecursion() throws {
        var text = "version: 1\ntasks:\n  t0: {shell: \"true\"}\n"
        for index in 1..<50_000 { text += "  t\(index): {needs: t\(index - 1), shell: \"true\"}\n" }
        text += "  t0x: {needs: t49999, shell: \"true\"}\n"
        let plan = try #require(try plan(text).plan)
        #expect(plan.tasks.count == 50_001)
        #expect(plan.waveCount == 50_001)
    }

    @Test func variablesResolveFromTaskThenWorkflowThenProcess() throws {
        let result = try plan(
            """
            version: 1
            env: {DIR: out, HOST: example.org}
            tasks:
              get:
                env: {DIR: mine}
                download: {url: "https://${HOST}/${FILE}", to: "${DIR}/$${literal}"}
            """, environment: ["FILE": "a.tgz"])
        let task = try #require(result.plan?.tasks.first)
        guard case .download(let download) = task.action else { Issue.record("not a download"); return }
        #expect(download.url.value == "https://example.org/a.tgz")
        #expect(download.to.value == "/work/mine/${literal}")
    }

    /// A secret from the environment is what the task uses; only what `--dry-run` shows masks it.
    @Test func aSecretTakenFromTheEnvironmentIsKeptForTheRunAndMaskedForShowing() throws {
        let result = try plan(
            """
            version: 1
            tasks:
              get: {download: {url: "https://h/?t=${GH_TOKEN}", to: "${HOME_DIR}/f"}, workdir: "${GH_TOKEN}"}
              other: {download: {url: "https://h/${HOME_DIR}", to: f}}
              whole: {download: {url: "${URL_SECRET}", to: g}}
            """, environment: ["GH_TOKEN": "ghp_1", "HOME_DIR": "home", "URL_SECRET": "https://h/s"])
        // "***" is no URL, but what is shown is not checked: the URL used is.
        #expect(messages(result) == [])
        let tasks = try #require(result.plan).tasks
        if case .download(let whole)? = tasks[2].shown?.action { #expect(whole.url.value == "***") } else { Issue.record("not shown") }
        guard case .download(let used) = tasks[0].action, case .download(let shown)? = tasks[0].shown?.action else {
            Issue.record("not downloads")
            return
        }
        #expect(used.url.value == "https://h/?t=ghp_1")
        #expect(tasks[0].workdir == "/work/ghp_1")
        #expect(shown.url.value == "https://h/?t=***")
        #expect(shown.to.value == "/work/***/home/f")
        #expect(tasks[0].shown?.workdir == "/work/***")
        #expect(tasks[1].shown == nil)
    }

    /// `FLOWRUN_RUN_TOKEN`, which an outer flowrun puts in every task's environment, is no
    /// secret to a flowrun run by a task: its name holds TOKEN, yet it is shown as it is.
    @Test func theRunTokenOfAnOuterFlowrunIsNoSecret() throws {
        let result = try plan(
            """
            version: 1
            tasks:
              mark: {combine: {inputs: [a.txt], to: "out-${FLOWRUN_RUN_TOKEN}.txt"}}
            """, environment: ["FLOWRUN_RUN_TOKEN": "4242-00ff00ff00ff00ff"])
        #expect(messages(result) == [])
        let task = try #require(result.plan?.tasks.first)
        #expect(task.shown == nil)
        if case .combine(let combine) = task.action { #expect(combine.to.value == "/work/out-4242-00ff00ff00ff00ff.txt") }
        #expect(SecretName.looksSecret("FLOWRUN_RUN_TOKEN") == false)
        #expect(SecretName.looksSecret("FLOWRUN_RUN_TOKEN_2"))
    }

    /// A secret in a task's output is masked wherever its bytes are: followed by a combining
    /// mark (one Character with its last letter) it was not found, and went out in clear.
    @Test func aSecretFollowedByACombiningMarkIsMasked() {
        let values = SecretName.ordered(["s3cr3t", "caf\u{E9}"])
        #expect(Array(SecretName.masked("x s3cr3t\u{301} y s3cr3t", ordered: values).unicodeScalars) == Array("x ***\u{301} y ***".unicodeScalars))
        // A canonically equivalent spelling is masked as before.
        #expect(SecretName.masked("cafe\u{301}!", ordered: values) == "***!")
        #expect(SecretName.masked("no secret here", ordered: values) == "no secret here")
    }
}
