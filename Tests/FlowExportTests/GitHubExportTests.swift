import FlowExport
import FlowModel
import Testing

/// The GitHub Actions export, read as a user reads it.
@Suite struct GitHubExportTests {
    static let workflow = """
        version: 1
        name: site
        concurrency: 2
        env: {STAGE: "on"}
        queues:
          net: {concurrency: 1}
        tasks:
          fetch:
            queue: net
            priority: high
            retries: 2
            retry_delay: 500ms
            timeout: 90s
            download: {url: "https://example.com/a.tgz", to: out/a.tgz}
          test.unit:
            needs: fetch
            continue_on_error: true
            env: {LEVEL: "2"}
            shell: make test
          hint:
            needs: [test.unit]
            when: failure
            shell: echo look
          report:
            needs: [fetch, hint]
            when: always
            shell: [ls, out]

        """

    @Test func eachTaskIsAJobWithItsNeedsWhenTimeoutAndEnv() throws {
        let export = GitHubExport.export(try ExportFixture.plan(Self.workflow), options: ExportFixture.options())
        let text = export.text
        #expect(
            text.contains(
                "\n  test_unit:\n    name: test.unit\n    needs: [fetch]\n    runs-on: ubuntu-latest\n    continue-on-error: true\n    env:\n      LEVEL: \"2\"\n"
            ))
        #expect(
            text.contains(
                "\n  hint:\n    name: hint\n    needs: [fetch, test_unit]\n    if: \"${{ !cancelled() && (needs.test_unit.result == 'failure' || needs.fetch.result == 'failure') }}\"\n"
            ))
        #expect(text.contains("\n  report:\n    name: report\n    needs: [fetch, hint]\n    if: \"${{ always() }}\"\n"))
        #expect(text.contains("env:\n  STAGE: \"on\"\n"))
        // 3 attempts of 90 s and waits of 0.5 s and 1 s: 4.5 minutes, rounded up to 5.
        #expect(text.contains("      - name: flowrun run --only fetch\n        timeout-minutes: 5\n"))
        #expect(text.contains("until flowrun run flow.yaml --only=fetch --no-retry; do"))
        #expect(text.contains("    1) sleep 0.500 ;;\n") && text.contains("    2) sleep 1 ;;\n"))
        #expect(text.contains("        run: flowrun run flow.yaml --only=test.unit\n"))
    }

    @Test func theFilesATaskWritesGoToTheJobsThatNeedIt() throws {
        let text = GitHubExport.export(try ExportFixture.plan(Self.workflow), options: ExportFixture.options()).text
        #expect(text.contains("tar -cpf \"$RUNNER_TEMP/flowrun-out/files.tar\" -- out/a.tgz"))
        #expect(text.contains("uses: actions/upload-artifact@v7\n        with:\n          name: flowrun-fetch\n"))
        #expect(
            text.contains("      - name: Get the files of fetch\n        uses: actions/download-artifact@v8\n        with:\n          name: flowrun-fetch\n"))
        // hint needs test.unit, which writes nothing to hand on.
        #expect(!text.contains("name: flowrun-test_unit"))
    }

    @Test func whatHasNoCounterpartIsNamedInTheFileAndInTheNotes() throws {
        let export = GitHubExport.export(try ExportFixture.plan(Self.workflow), options: ExportFixture.options())
        #expect(export.notCarried.contains { $0.hasPrefix("queue 'net' (concurrency 1; fetch)") })
        #expect(export.notCarried.contains { $0.hasPrefix("concurrency: 2:") })
        #expect(export.notCarried.contains { $0.hasPrefix("fail_fast:") })
        #expect(export.notCarried.contains { $0.hasPrefix("priority (fetch)") })
        for note in export.notCarried { #expect(export.text.contains("# - " + note)) }
        #expect(export.mapped.contains("when: failure -> if: !cancelled() and a need's result is failure (or that of a task before a skipped need): hint"))
    }

    @Test func anOutputOutsideTheRepositoryIsNamedAsNotHandedOn() throws {
        let plan = try ExportFixture.plan("version: 1\ntasks:\n  a: {shell: x, outputs: [/tmp/a.txt]}\n  b: {needs: a, shell: y}\n")
        let export = GitHubExport.export(plan, options: ExportFixture.options())
        #expect(export.notCarried.contains("output /tmp/a.txt of task 'a' is outside /repo: not handed to the jobs that need it"))
    }

    @Test func anExpressionInAValueStaysLiteral() throws {
        let plan = try ExportFixture.plan("version: 1\nenv: {X: \"${{ secrets.T }}\"}\ntasks:\n  a: {shell: x}\n")
        let text = GitHubExport.export(plan, options: ExportFixture.options()).text
        #expect(text.contains("X: \"${{ '${{' }} secrets.T }}\""))
    }

    @Test func moreThan256TasksAreGroupedIntoAtMost256Jobs() throws {
        var text = "version: 1\ntasks:\n"
        for index in 0..<600 { text += "  t\(index): {shell: \"true\"\(index % 3 == 0 ? "" : ", needs: [t\(index - 1)]")}\n" }
        text += "  cleanup: {needs: [t599], when: always, shell: \"true\"}\n"
        let export = GitHubExport.export(try ExportFixture.plan(text), options: ExportFixture.options())
        let jobs = export.text.components(separatedBy: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") && $0.hasSuffix(":") }
        #expect(jobs.count <= 256)
        #expect(export.notCarried.contains { $0.hasPrefix("601 tasks: a GitHub run holds at most 256 jobs") })
        #expect(export.notCarried.contains { $0.hasPrefix("when: failure|always of grouped tasks (cleanup)") })
    }
}
