import Foundation
import Testing

/// A download from a `file:` URL copies a local file: that file is its input, as `cp`'s source
/// is a make rule's prerequisite, so an edit to it makes the download run again.
@Suite struct FileURLSourceTests {
    static let workflow = """
        version: 1
        tasks:
          get: {download: {url: 'file://${FLOWRUN_WORKFLOW_DIR}/my%20src.txt', to: out/got.txt}}
          use: {needs: get, inputs: [out/got.txt], outputs: [out/up.txt], shell: 'tr a-z A-Z < out/got.txt > out/up.txt'}

        """

    @Test func anEditedSourceFileIsDownloadedAgain() async throws {
        let project = try UpToDateTests.Project(Self.workflow, files: ["my src.txt": "one\n"])
        #expect(try await project.run().ran == ["get", "use"])
        #expect(try await project.run().upToDate == ["get", "use"])
        try project.write("my src.txt", "two, longer\n")
        let rerun = try await project.run()
        #expect(rerun.ran == ["get", "use"])
        #expect(try project.read("out/got.txt") == "two, longer\n")
        #expect(try project.read("out/up.txt") == "TWO, LONGER\n")
        #expect(try await project.run().upToDate == ["get", "use"])
    }
}
