import Foundation
import Testing

/// A need that ran but left no record (an input changed while it ran, as when `inputs` and
/// `outputs` name the file it edits in place) makes its dependents run again next time: its
/// outputs may be other than those they were made from. Found by scripts/makepeer.py.
@Suite struct UnrecordedNeedTests {
    /// bump rewrites version.txt in place, so it runs every time and is never recorded; pkg
    /// needs it and copies version.txt without declaring it (a need's outputs count).
    static let bump = """
        version: 1
        tasks:
          bump:
            inputs: [version.txt]
            outputs: [version.txt]
            shell: echo $(( $(cat version.txt) + 1 )) > version.txt
          pkg:
            needs: bump
            outputs: [pkg.txt]
            shell: cat version.txt > pkg.txt

        """

    @Test func aDependentFollowsANeedThatRewritesItsOwnInputOnEveryRun() async throws {
        let project = try UpToDateTests.Project(Self.bump, files: ["version.txt": "1\n"])
        for expected in ["2", "3", "4"] {
            let run = try await project.run()
            #expect(run.ran == ["bump", "pkg"])
            #expect(try project.read("version.txt") == expected + "\n")
            // Before: pkg stayed "up to date" with 2 while version.txt said 3, then 4.
            #expect(try project.read("pkg.txt") == expected + "\n")
        }
    }

    /// a's input is edited while a runs (here by a itself, once): a is not recorded, and the
    /// next run makes it again from the new contents; --dry-run must say b runs then too.
    static let editedWhileRunning = """
        version: 1
        tasks:
          a:
            inputs: [in.txt]
            outputs: [a.txt]
            shell: 'cat in.txt > a.txt; if [ -e edit ]; then rm edit; echo more >> in.txt; fi'
          b:
            needs: a
            outputs: [b.txt]
            shell: cat a.txt > b.txt

        """

    @Test func dryRunNamesTheDependentOfANeedWhoseInputChangedWhileItRan() async throws {
        let project = try UpToDateTests.Project(Self.editedWhileRunning, files: ["in.txt": "one\n", "edit": ""])
        #expect(try await project.run().ran == ["a", "b"])
        let dryRun = try await FlowrunBinary.run(["run", "--dry-run", "flow.yaml"], in: project.url)
        // Before: "b" was missing here (up to date), and the run then ran it.
        #expect(dryRun.stdout.contains("b  would run: changed need"), "\(dryRun.stdout)")
        let next = try await project.run()
        #expect(next.ran == ["a", "b"])
        #expect(try project.read("b.txt") == "one\nmore\n")
        #expect(try await project.run().ran.isEmpty)
    }
}
