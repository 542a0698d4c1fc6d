import FlowConsole
import FlowLoading
import FlowModel
import FlowPlanning
import Testing

@Suite struct PlanPrinterTests {
    /// 3,000 tasks in 429 waves of 7: each task needs the last one of the 7 before, so waves
    /// change inside chunks, on their edges and on the edges of rounds.
    func plan() throws -> Plan {
        var text = "version: 1\ntasks:\n"
        for index in 0..<3_000 {
            let needs = index >= 7 ? "needs: [t\(index - index % 7 - 1)], " : ""
            text += "  t\(index): {\(needs)shell: [\"echo\", \"\(index)\"]}\n"
        }
        let loaded = WorkflowLoader.decode(Array(text.utf8), file: "w.yaml", directory: "/work", defaultName: "w")
        let workflow = try #require(loaded.workflow)
        return try #require(try Planner.plan(workflow, options: PlanningOptions()).plan)
    }

    func written(_ plan: Plan, tasksPerChunk: Int) -> String {
        var bytes: [UInt8] = []
        PlanPrinter().write(plan, tasksPerChunk: tasksPerChunk) { bytes.append(contentsOf: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func aPlanWrittenInChunksReadsAsOneWrittenWhole() throws {
        let plan = try plan()
        let whole = written(plan, tasksPerChunk: .max)
        #expect(plan.waveCount == 429)
        for tasksPerChunk in [1, 7, 100, 1024] {
            #expect(written(plan, tasksPerChunk: tasksPerChunk) == whole, "\(tasksPerChunk) tasks per chunk")
        }
        // Each task names its wave, and the tasks are numbered 1 to 3,000 in order.
        let lines = whole.split(separator: "\n")
        #expect(lines.filter { $0.hasSuffix("  shell  wave 429") }.count == 4)
        let numbers = lines.compactMap { $0.hasPrefix("  ") && !$0.hasPrefix("   ") ? Int($0.dropFirst(2).prefix { $0 != "." }) : nil }
        #expect(numbers == Array(1...3_000))
    }

    /// A value with a newline (a dotenv file's double-quoted `"a\nb"`), an escape sequence or
    /// spaces keeps the plan's layout: one `env:` line per task, the value written as YAML's
    /// double-quoted form, which can be pasted back into the file. It was printed raw: the
    /// rest of the value started a line of its own, and `\e[2J` reached the terminal.
    @Test func envValuesWithNewlinesAndEscapesStayOnTheirLine() throws {
        let text = """
            version: 1
            env: {ML: "first\\nsecond", ESC: "\\e[31mred", SPACED: "a b", QUOTE: 'say "hi"', PLAIN: a=b}
            tasks:
              t: {description: "two\\nlines", shell: "true"}
            """
        let loaded = WorkflowLoader.decode(Array(text.utf8), file: "w.yaml", directory: "/work", defaultName: "w")
        let workflow = try #require(loaded.workflow, "\(loaded.diagnostics)")
        let plan = try #require(try Planner.plan(workflow, options: PlanningOptions()).plan)
        let lines = written(plan, tasksPerChunk: 1).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.contains("  1. t  shell  wave 1  # two\\nlines"), "\(lines)")
        let env = try #require(lines.first { $0.hasPrefix("       env: ") })
        #expect(env == #"       env: ML="first\nsecond" ESC="\x1B[31mred" SPACED="a b" QUOTE="say \"hi\"" PLAIN=a=b"#, "\(lines)")
        #expect(!lines.contains { $0.hasPrefix("second") || $0.hasPrefix("lines") }, "\(lines)")
    }

    /// `--dry-run` under GitHub Actions: a script that prints the runner's commands
    /// (`echo "##[group]Build"`) is shown, and the runner reads the older `##[NAME]` form
    /// anywhere in a line: the plan's line opened a fold that never closed. It is written as text.
    @Test func aScriptQuotingAWorkflowCommandRunsNoneUnderGitHubActions() throws {
        let text = "version: 1\ntasks:\n  t: {shell: 'echo \"##[group]Build\"'}\n"
        let loaded = WorkflowLoader.decode(Array(text.utf8), file: "w.yaml", directory: "/work", defaultName: "w")
        let workflow = try #require(loaded.workflow)
        let plan = try #require(try Planner.plan(workflow, options: PlanningOptions()).plan)
        var printer = PlanPrinter(githubActions: true)
        printer.stopToken = "flowrun-T"
        var bytes: [UInt8] = []
        printer.write(plan) { bytes.append(contentsOf: $0) }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let run = try #require(lines.firstIndex { $0.hasSuffix("run: echo \"##[group]Build\"") }, "\(lines)")
        #expect(lines[run - 1] == "::stop-commands::flowrun-T" && lines[run + 1] == "::flowrun-T::", "\(lines)")
        #expect(lines.filter { $0.hasPrefix("::") }.count == 2)
        // Elsewhere, as it was.
        #expect(written(plan, tasksPerChunk: 1).split(separator: "\n", omittingEmptySubsequences: false) == lines.filter { !$0.hasPrefix("::") })
    }

    @Test func tasksAreNumberedInTheGivenOrder() throws {
        let plan = try plan()
        let order = Array(plan.tasks.indices.reversed())
        var bytes: [UInt8] = []
        PlanPrinter().write(plan, order: order, tasksPerChunk: 100) { bytes.append(contentsOf: $0) }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        #expect(lines.contains("  1. t2999  shell  wave 429"))
        #expect(lines.contains("  3000. t0  shell  wave 1"))
    }
}
