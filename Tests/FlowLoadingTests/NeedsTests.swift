import FlowLoading
import FlowModel
import Testing

/// `needs` names each task once, as GitHub Actions requires (actionlint reports a repeat).
@Suite struct NeedsTests {
    func load(_ yaml: String) -> LoadedWorkflow {
        WorkflowLoader.decode(Array(yaml.utf8), file: "flow.yaml", directory: "/work", defaultName: "w")
    }

    /// `needs: [x, x]` was valid and listed `x` twice (in `--dry-run` and in the graph): now an
    /// error at the second one, naming the first.
    @Test func aRepeatedNeedIsAnErrorAtTheRepeat() {
        let loaded = load(
            """
            version: 1
            tasks:
              x: {shell: 'true'}
              y: {shell: 'true'}
              z:
                needs: [x, y, x]
                shell: 'true'

            """)
        #expect(
            loaded.diagnostics.map { "\($0.severity) \($0.location): \($0.message.text)" } == [
                "error flow.yaml:6:19: task 'z' needs 'x' twice (first at line 6, column 13)"
            ])
    }

    /// A matrix task's name stands for all its combinations: naming one of them as well
    /// leaves it needed once.
    @Test func aCombinationNamedAlsoByItsMatrixIsNeededOnce() throws {
        let loaded = load(
            """
            version: 1
            tasks:
              build: {matrix: {os: [linux, mac]}, shell: 'true'}
              pack: {needs: ['build[linux]', build], shell: 'true'}

            """)
        #expect(!loaded.diagnostics.hasErrors, "\(loaded.diagnostics)")
        let pack = try #require(loaded.workflow?.tasks.first { $0.id == "pack" })
        #expect(pack.needs.map(\.value) == ["build[linux]", "build[mac]"])
    }
}
