import Foundation
import Testing

/// The order in which `needs:` lists a task's needs is not what the task makes: as make does not
/// remake a target whose prerequisites are listed in another order, a task whose needs were
/// reordered stays up to date. Found by scripts/makepeer.py.
@Suite struct NeedsOrderTests {
    static func flow(needs: String) -> String {
        """
        version: 1
        tasks:
          a: {inputs: [a.txt], outputs: [a.out], shell: 'cat a.txt > a.out'}
          b: {inputs: [b.txt], outputs: [b.out], shell: 'cat b.txt > b.out'}
          c: {needs: \(needs), inputs: [a.out, b.out], outputs: [c.out], shell: 'cat a.out b.out > c.out'}
          d: {needs: [c], inputs: [c.out], outputs: [d.out], shell: 'cat c.out > d.out'}

        """
    }

    @Test func reorderingANeedsListKeepsTheTaskUpToDate() async throws {
        let project = try UpToDateTests.Project(Self.flow(needs: "[a, b]"), files: ["a.txt": "a\n", "b.txt": "b\n"])
        #expect(try await project.run().ran == ["a", "b", "c", "d"])
        try project.write("flow.yaml", Self.flow(needs: "[b, a]"))
        // Before: c and d ran again.
        let reordered = try await project.run()
        #expect(reordered.ran.isEmpty)
        #expect(reordered.upToDate == ["a", "b", "c", "d"])
        let dryRun = try await FlowrunBinary.run(["run", "--dry-run", "flow.yaml"], in: project.url)
        #expect(dryRun.stdout.contains("4 tasks up to date"), "\(dryRun.stdout)")
        // A need that changed still makes it run.
        try project.write("b.txt", "bee\n")
        #expect(try await project.run().ran == ["b", "c", "d"])
        #expect(try project.read("c.out") == "a\nbee\n")
    }
}
