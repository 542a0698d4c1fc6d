import Foundation
import Testing

/// Files and command lines written to do harm, or by mistake: each is refused or shown safely
/// with a clear message, as a user would see it from the real binary.
@Suite struct UntrustedInputTests {
    /// Writes `text` as `flow.yaml` in a new folder and runs `flowrun arguments...` there.
    func flowrun(_ arguments: [String], file text: String, environment: [String: String] = [:]) throws
        -> (result: FlowrunBinary.Result, folder: TemporaryFolder)
    {
        let folder = try TemporaryFolder()
        try Data(text.utf8).write(to: folder.url.appendingPathComponent("flow.yaml"))
        return (try FlowrunBinary.run(arguments, in: folder.url, environment: environment), folder)
    }

    @Test func aLongValueReferencedManyTimesIsRefusedBeforeAnythingIsPrinted() throws {
        // 1 MiB referenced by 70 tasks: 70 nodes of aliases, 70 MiB of text.
        var text = "version: 1\nenv: {LONG: &long \"\(String(repeating: "x", count: 1 << 20))\"}\ntasks:\n"
        for index in 0..<70 { text += "  t\(index): {shell: \"true\", env: {COPY: *long}}\n" }
        let (result, _) = try flowrun(["run", "--dry-run", "flow.yaml"], file: text)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        // The 65th alias crosses the 64 MiB limit, on the task line 68 of the file.
        #expect(result.stderr == "flow.yaml:68:36: error: aliases expand to more than 64 MiB of text; "
            + "refusing to load (is a long value anchored and referenced many times?)\n")
    }
}
