import FlowExport
import Foundation
import Testing

/// Every example workflow and a set of edge cases, exported both ways and checked by the
/// engines' own validators (actionlint and GitHub's schema; Argo's API models with unknown
/// fields refused, and Argo's naming and DAG rules), plus structure checks against the source.
@Suite(.serialized) struct EngineValidationTests {
    static let examples = ["ci", "failure", "hello", "images", "queues", "upgrade"]

    /// Ids of every shape, each field that maps, values YAML would misread, and a 64-char id;
    /// a name with `${{` (GitHub allows no expression in a workflow's name), and a `when:
    /// failure` task without needs (it never runs) with a dependent.
    static let edgeCases = """
        version: 1
        name: "edge cases: 1.0 ${{ github.actor }}"
        concurrency: 3
        fail_fast: false
        env: {YES: "yes", EXPR: "${{ github.token }}", COLON: "a: b # c"}
        queues:
          serial: {concurrency: 1}
          "pool.2": {concurrency: 2}
        tasks:
          1st.setup: {shell: "mkdir -p out", outputs: [out]}
          test.unit: {needs: 1st.setup, queue: serial, shell: "echo unit > out/unit.txt", outputs: ["out/*.txt"]}
          test_unit: {needs: 1st.setup, queue: serial, retries: 3, retry_delay: 250ms, timeout: 500ms, shell: "true"}
          build_linux: {needs: [test.unit, test_unit], queue: pool.2, priority: very-high, continue_on_error: true, shell: "exit 1"}
          -dash: {needs: build_linux, env: {ON: "off", "N": "1e3"}, shell: [echo, "it's"]}
          Main: {needs: [-dash], when: failure, timeout: 1m, shell: "echo failed"}
          main: {needs: [Main, build_linux], when: always, timeout: 2h, shell: "echo always"}
          flowrun-task: {needs: main, description: "a task named like the export's template", shell: "true"}
          aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: {needs: [flowrun-task], shell: "true"}
          last: {needs: [1st.setup, main], shell: "true"}
          alone: {when: failure, shell: "echo never"}
          after-alone: {needs: alone, shell: "true"}

        """

    static func big(_ count: Int) -> String {
        var text = "version: 1\nname: big\ntasks:\n"
        for index in 0..<count { text += "  t\(index): {shell: \"true\"\(index < 10 ? "" : ", needs: [t\(index / 3)]")}\n" }
        return text
    }

    static let cases: [String] = examples + ["edge-cases", "big-300"]

    func source(_ name: String) throws -> (path: String, relative: String) {
        if Self.examples.contains(name) {
            return (ExportFixture.repositoryRoot.appendingPathComponent("workflows/\(name).yaml").path, "workflows/\(name).yaml")
        }
        let text = name == "edge-cases" ? Self.edgeCases : Self.big(300)
        let file = try ExportFixture.write(text, name: "\(name).yaml")
        return (file.path, file.lastPathComponent)
    }

    @Test(arguments: cases) func githubExportPassesActionlintAndTheSchema(_ name: String) throws {
        let (path, relative) = try source(name)
        let root = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let plan = try ExportFixture.plan(file: path)
        let isExample = Self.examples.contains(name)
        var options = ExportFixture.options(relative, root: isExample ? ExportFixture.repositoryRoot.path : root)
        options.runsOn = ["ubuntu-24.04"]
        let export = GitHubExport.export(plan, options: options)
        let file = try ExportFixture.write(export.text, name: "\(name).yml")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let check = try ExportFixture.validate(["github", file.path, path])
        #expect(check.status == 0, "\(check.output)\n\(export.text)")
        #expect(check.output.hasPrefix("ok: "))
    }

    @Test(arguments: cases) func argoExportPassesTheStrictModelsAndArgosRules(_ name: String) throws {
        let (path, relative) = try source(name)
        let plan = try ExportFixture.plan(file: path)
        let root = Self.examples.contains(name) ? ExportFixture.repositoryRoot.path : URL(fileURLWithPath: path).deletingLastPathComponent().path
        for template in [false, true] {
            var options = ExportFixture.options(relative, root: root)
            options.workflowTemplate = template
            let export = ArgoExport.export(plan, options: options)
            let file = try ExportFixture.write(export.text, name: "\(name).yaml")
            defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
            let check = try ExportFixture.validate(["argo", file.path, path])
            #expect(check.status == 0, "\(check.output)\n\(export.text)")
        }
    }

    /// The checks can fail: a misspelt key, a bad name, a missing need are each found.
    @Test func theValidatorsRefuseABrokenExport() throws {
        let (path, relative) = try source("edge-cases")
        let plan = try ExportFixture.plan(file: path)
        let options = ExportFixture.options(relative, root: URL(fileURLWithPath: path).deletingLastPathComponent().path)
        let argo = ArgoExport.export(plan, options: options).text
        let github = GitHubExport.export(plan, options: options).text
        let broken: [(String, String, String)] = [
            ("argo", argo.replacingOccurrences(of: "activeDeadlineSeconds", with: "activeDeadlineSecond"), "extra_forbidden"),
            ("argo", argo.replacingOccurrences(of: "name: test-unit\n", with: "name: 1test-unit\n"), "not valid in a DAG with depends"),
            ("argo", argo.replacingOccurrences(of: "depends: test-unit.Succeeded && ", with: "depends: "), "its DAG task depends on"),
            ("github", github.replacingOccurrences(of: "runs-on:", with: "run-on:"), "actionlint"),
            ("github", github.replacingOccurrences(of: "needs: [test_unit-2, test_unit]", with: "needs: [test_unit]"), "does not need its job"),
        ]
        for (engine, text, expected) in broken {
            #expect(text != (engine == "argo" ? argo : github), "the replacement for \(expected) changed nothing")
            let file = try ExportFixture.write(text, name: "broken.yaml")
            defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
            let check = try ExportFixture.validate([engine, file.path, path])
            #expect(check.status == 1, "\(expected): \(check.output)")
            #expect(check.output.contains(expected), "\(check.output)")
        }
    }
}
