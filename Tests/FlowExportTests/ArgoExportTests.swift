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
        #expect(text.contains("depends: test-unit.Failed || test-unit.Errored\n"))
        #expect(text.contains("depends: fetch.Succeeded\n"))
        #expect(text.contains("(hint.Succeeded || hint.Failed || hint.Errored || hint.Skipped || hint.Omitted)"))
        #expect(!text.contains("continueOn"))
        #expect(!text.contains("dependencies:"))
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
}
