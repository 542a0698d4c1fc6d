import Foundation
import Testing

/// `run --only TASK`, then a whole run: as `make TARGET` then `make`, the task `--only` ran is
/// not run again when nothing changed, and whatever changed still runs, with what needs it.
@Suite struct OnlyThenFullRunTests {
    /// b needs a, and reads what a wrote (not declared as its input: only its need's
    /// fingerprint tells b that a ran again).
    static let workflow = """
        version: 1
        tasks:
          a: {inputs: [src/a.txt], outputs: [build/a.out], shell: 'mkdir -p build && cat src/a.txt > build/a.out'}
          b: {needs: a, inputs: [src/b.txt], outputs: [build/b.out], shell: 'cat build/a.out src/b.txt > build/b.out'}

        """

    func project() throws -> UpToDateTests.Project {
        try UpToDateTests.Project(Self.workflow, files: ["src/a.txt": "a\n", "src/b.txt": "b\n"])
    }

    /// Seen failing before: the whole run ran b again ("changed need"), as `--only` had kept b
    /// without its need's fingerprint.
    @Test func aWholeRunAfterOnlyKeepsWhatOnlyRan() async throws {
        let project = try project()
        #expect(try await project.run().ran == ["a", "b"])
        // Nothing changed: b is up to date under --only too.
        let unchanged = try await project.run(["--only", "b"])
        #expect(unchanged.ran.isEmpty && unchanged.upToDate == ["b"], "\(unchanged.ran) \(unchanged.upToDate)")
        try project.write("src/b.txt", "b2\n")
        #expect(try await project.run(["--only", "b"]).ran == ["b"])
        let whole = try await project.run()
        #expect(whole.ran.isEmpty && whole.upToDate == ["a", "b"], "\(whole.ran) \(whole.upToDate)")
        #expect(try project.read("build/b.out") == "a\nb2\n")
    }

    /// A need that changed since its last success runs in the whole run, and so does the task
    /// that needs it. Under `--only` the need is taken as done, as it last succeeded: the task
    /// made from that is up to date there.
    @Test func aNeedThatChangedRunsWithItsDependentAfterOnly() async throws {
        let project = try project()
        #expect(try await project.run().ran == ["a", "b"])
        try project.write("src/a.txt", "a2\n")
        let only = try await project.run(["--only", "b"])
        #expect(only.ran.isEmpty && only.upToDate == ["b"], "\(only.ran) \(only.upToDate)")
        try project.write("src/b.txt", "b2\n")
        #expect(try await project.run(["--only", "b"]).ran == ["b"])
        #expect(try project.read("build/b.out") == "a\nb2\n")
        #expect(try await project.run().ran == ["a", "b"])
        #expect(try project.read("build/b.out") == "a2\nb2\n")
    }

    /// A need flowrun never recorded (its output made elsewhere) runs in the whole run, and the
    /// task `--only` ran runs again after it.
    @Test func aNeedNeverRecordedRunsWithItsDependentAfterOnly() async throws {
        let project = try project()
        try project.write("build/a.out", "made elsewhere\n")
        #expect(try await project.run(["--only", "b"]).ran == ["b"])
        #expect(try await project.run().ran == ["a", "b"])
        #expect(try project.read("build/b.out") == "a\nb\n")
    }

    /// A need's output changed since its last success without the need running (edited, or
    /// made by other means): `--only` makes the task from the changed file, and the whole run,
    /// which runs the need again with the same fingerprint, must run the task again too.
    @Test func aNeedWhoseOutputChangedRunsItsDependentAgainAfterOnly() async throws {
        let project = try project()
        #expect(try await project.run().ran == ["a", "b"])
        try project.write("build/a.out", "edited\n")
        try project.write("src/b.txt", "b2\n")
        #expect(try await project.run(["--only", "b"]).ran == ["b"])
        #expect(try project.read("build/b.out") == "edited\nb2\n")
        #expect(try await project.run().ran == ["a", "b"])
        #expect(try project.read("build/b.out") == "a\nb2\n")
    }
}
