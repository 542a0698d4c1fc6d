import FlowExport
import FlowModel
import Testing

/// The Argo Workflows export, read as a user reads it.
@Suite struct ArgoExportTests {
    @Test func queuesAreSemaphoresWithTheirConfigMapFirst() throws {
        let export = ArgoExport.export(try ExportFixture.plan(GitHubExportTests.workflow), options: ExportFixture.options())
        let text = export.text
        #expect(text.contains("kind: ConfigMap\nmetadata:\n  name: site-flowrun-queues\ndata:\n  net: \"1\"\n---\n"))
        #expect(
            text.contains(
                "synchronization:\n        semaphores:\n          - configMapKeyRef:\n              name: site-flowrun-queues\n              key: net\n"))
        #expect(text.contains("  parallelism: 2\n"))
    }

    @Test func retriesTimeoutAndWhenMapToArgoFields() throws {
        let text = ArgoExport.export(try ExportFixture.plan(GitHubExportTests.workflow), options: ExportFixture.options()).text
        #expect(
            text.contains(
                "retryStrategy:\n        limit: \"2\"\n        retryPolicy: Always\n        backoff:\n          duration: \"500ms\"\n          factor: \"2\"\n          cap: \"60s\"\n"
            ))
        #expect(text.contains("activeDeadlineSeconds: 90\n"))
        #expect(text.contains("args:\n          - run\n          - flow.yaml\n          - \"--only=fetch\"\n          - \"--no-retry\"\n"))
        // continue_on_error: its dependents accept .Failed; continueOn is not allowed with depends.
        #expect(text.contains("          - name: hint\n            template: flowrun-task\n"))
        // hint runs when test.unit failed, or was skipped because fetch failed.
        #expect(text.contains("depends: test-unit.Failed || test-unit.Errored || fetch.Failed || fetch.Errored\n"))
        #expect(text.contains("depends: fetch.Succeeded\n"))
        #expect(text.contains("(hint.Succeeded || hint.Failed || hint.Errored || hint.Skipped || hint.Omitted)"))
        #expect(!text.contains("continueOn"))
        #expect(!text.contains("dependencies:"))
    }

    /// Argo evaluates `depends` with the expr language, reading `-` as `_`: a task named as
    /// one of its words (`not`, `in`, `and`, `or`, `true`, `nil`, `if`...) made `not.Succeeded`,
    /// which expr cannot parse, so Argo failed the dependent ("unable to evaluate expression")
    /// where flowrun runs it. Such a name gets the `t-` that a name starting with a digit gets.
    @Test func aTaskNamedAsAWordOfArgosExpressionLanguageIsRenamed() throws {
        let plan = try ExportFixture.plan(
            """
            version: 1
            tasks:
              not: {shell: "true"}
              "true": {shell: "true"}
              in: {needs: [not, "true"], shell: "true"}
              lint: {needs: in, when: always, shell: "true"}
            """)
        let text = ArgoExport.export(plan, options: ExportFixture.options()).text
        #expect(text.contains("depends: t-not.Succeeded && t-true.Succeeded\n"), "\(text)")
        #expect(text.contains("(t-in.Succeeded || t-in.Failed || t-in.Errored || t-in.Skipped || t-in.Omitted)"))
        #expect(!text.contains(" not.") && !text.contains(" true.") && !text.contains("(in."))
    }

    /// flowrun runs a `when: failure` task when a need was skipped because something before it
    /// failed (the usual "notify on failure" at the end of a chain); Argo omits that need
    /// (`.Omitted`), so the task's `depends` must name the task that failed.
    @Test func aWhenFailureTaskRunsWhenAnEarlierTaskFailedAndItsNeedWasOmitted() throws {
        let plan = try ExportFixture.plan(
            """
            version: 1
            tasks:
              build: {shell: make}
              test: {needs: build, shell: make test}
              deploy: {needs: test, shell: ./deploy}
              notify: {needs: deploy, when: failure, shell: ./notify}
              cleanup: {needs: deploy, when: always, shell: ./cleanup}
              after: {needs: cleanup, when: failure, shell: ./after}
            """)
        let text = ArgoExport.export(plan, options: ExportFixture.options()).text
        #expect(text.contains("depends: deploy.Failed || deploy.Errored || test.Failed || test.Errored || build.Failed || build.Errored\n"))
        // A `when: always` need runs after a failure and passes none on: only its own counts.
        #expect(text.contains("depends: cleanup.Failed || cleanup.Errored\n"))
    }

    /// A `when: failure` task with no needs never runs in flowrun (no need can fail), and the
    /// tasks that need it are skipped. The export let it wait only for the setup, so Argo ran
    /// it (`flowrun run --only` then skips it and exits 0: Succeeded), and its dependents ran
    /// too. Now its `when` is never true: Argo skips it, and omits its dependents.
    @Test func aWhenFailureTaskWithoutNeedsNeverRuns() throws {
        let plan = try ExportFixture.plan(
            """
            version: 1
            tasks:
              build: {shell: make}
              onfail: {when: failure, shell: ./notify}
              after: {needs: onfail, shell: ./after}
            """)
        let text = ArgoExport.export(plan, options: ExportFixture.options()).text
        #expect(
            text.contains(
                "          - name: onfail\n            template: flowrun-task\n            arguments:\n              parameters:\n                - name: task\n                  value: onfail\n            depends: flowrun-setup.Succeeded\n            when: \"false\"\n"
            ), "\(text)")
        #expect(text.contains("depends: onfail.Succeeded\n"))
    }

    /// Argo's DAG `failFast` (default true) marks the DAG failed once every created node has
    /// ended and a target's branch has failed, though other targets were never created (held
    /// by `parallelism` or the controller's per-pass deadline): no task starts after that,
    /// `when: failure|always` tasks included, which flowrun runs after a failure. A workflow
    /// with such a task gets `failFast: false`; one without keeps Argo's default.
    @Test(arguments: [("failure", true), ("always", true), ("success", false)])
    func aTaskThatRunsAfterAFailureTurnsFailFastOff(when: String, off: Bool) throws {
        let plan = try ExportFixture.plan(
            """
            version: 1
            concurrency: 2
            tasks:
              build: {shell: make}
              test: {needs: build, shell: make test}
              lint: {shell: make lint}
              notify: {needs: [test, lint], when: \(when), shell: ./notify}
            """)
        let export = ArgoExport.export(plan, options: ExportFixture.options())
        #expect(export.text.contains("      dag:\n        failFast: false\n        tasks:\n") == off, "\(export.text)")
        #expect(export.mapped.contains { $0.hasPrefix("when: failure|always -> the DAG's failFast: false") } == off, "\(export.mapped)")
        // flowrun's fail_fast would not start lint after build failed; Argo without failFast
        // does: said as not carried over, not only as a mapping.
        #expect(export.notCarried.contains { $0.hasPrefix("fail_fast") } == off, "\(export.notCarried)")
    }

    @Test func aTaskWithDotsKeepsItsIdInAComment() throws {
        let text = ArgoExport.export(try ExportFixture.plan(GitHubExportTests.workflow), options: ExportFixture.options()).text
        #expect(text.contains("          - # task 'test.unit'\n            name: test-unit\n"))
    }

    @Test func templateMakesAWorkflowTemplate() throws {
        var options = ExportFixture.options()
        options.workflowTemplate = true
        let text = ArgoExport.export(try ExportFixture.plan("version: 1\nname: Big Build\ntasks:\n  a: {shell: x}\n"), options: options).text
        #expect(text.contains("kind: WorkflowTemplate\nmetadata:\n  name: big-build\n"))
    }

    /// A Kubernetes object name ends with a letter or digit. A workflow named `Release 1.0!` (or
    /// `build_`) was spelled `release-1-0-`: fine before the random suffix of `generateName`,
    /// refused by `kubectl apply` as a WorkflowTemplate's `name`.
    @Test(arguments: [("Release 1.0!", "release-1-0"), ("build_", "build"), ("Åsa", "t-sa"), ("!!", "t")])
    func aTemplateNameEndsWithALetterOrDigit(name: String, expected: String) throws {
        var options = ExportFixture.options()
        options.workflowTemplate = true
        let text = ArgoExport.export(try ExportFixture.plan("version: 1\nname: \"\(name)\"\ntasks:\n  a: {shell: x}\n"), options: options).text
        #expect(text.contains("kind: WorkflowTemplate\nmetadata:\n  name: \(expected)\n"), "\(text)")
    }
}
