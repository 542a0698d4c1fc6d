import Foundation
import Testing

/// A matrix task runs as one ordinary task per combination.
@Suite struct MatrixRunTests {
    static let workflow = """
        version: 1
        tasks:
          test:
            matrix: {os: [linux, mac], py: ["3.11", "3.12"], exclude: [{os: mac, py: "3.11"}]}
            outputs: ["out/${matrix.os}-${matrix.py}.txt"]
            shell: mkdir -p out && echo "$MATRIX_OS $MATRIX_PY" > "out/$MATRIX_OS-$MATRIX_PY.txt" && echo "$FLOWRUN_TASK"
          report:
            needs: test
            shell: cat out/*.txt
          other: {shell: 'true'}
        """

    @Test func namingTheTaskRunsEveryCombinationWithItsValues() async throws {
        let (result, events, folder) = try await RunTests().run(Self.workflow, ["test"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Set(events.finals.keys) == ["test[linux,3.11]", "test[linux,3.12]", "test[mac,3.12]"])
        #expect(events.lines(of: "test[mac,3.12]") == ["test[mac,3.12]"])
        let written = try String(contentsOf: folder.url.appendingPathComponent("out/mac-3.12.txt"), encoding: .utf8)
        #expect(written == "mac 3.12\n")
    }

    @Test func aNeedOnTheTaskWaitsForEveryCombination() async throws {
        let (result, events, _) = try await RunTests().run(Self.workflow, ["report"])
        #expect(result.status == 0, "\(result.stderr)")
        let started = try #require(events.index(of: "task.started", task: "report"))
        for id in ["test[linux,3.11]", "test[linux,3.12]", "test[mac,3.12]"] {
            #expect(try #require(events.index(of: "task.succeeded", task: id)) < started)
        }
        #expect(events.lines(of: "report") == ["linux 3.11", "linux 3.12", "mac 3.12"])
    }

    @Test func oneCombinationCanBeNamedAndATypoGetsTheTasksName() async throws {
        let (result, events, _) = try await RunTests().run(Self.workflow, ["test[linux,3.12]"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Array(events.finals.keys) == ["test[linux,3.12]"])
        let folder = try WorkflowFolder(Self.workflow)
        let typo = try await FlowrunBinary.run(["run", "flow.yaml", "tset"], in: folder.url)
        #expect(typo.status == 2)
        #expect(typo.stderr == "flowrun: error: no task named 'tset' in flow.yaml; did you mean 'test'?\n")
    }
}
