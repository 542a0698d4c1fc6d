import Foundation
import Testing

/// A secret value (a `${NAME}` whose name looks secret, from `--env`, a dotenv file or the
/// process environment) reaches no file flowrun writes: the state folder (task state, journal,
/// run records), the events file, the trace, the HTML report, the JUnit report, nor what `logs`
/// and `report` print. Its tasks are still kept up to date.
@Suite struct SecretsInStateTests {
    static let token = "s3cr3t-upload-value"
    static let key = "s3cr3t-api-value"

    /// Every field that takes a `${NAME}`: declared inputs and outputs, a workdir, a download's
    /// url, to and headers, a decompress's from and to, a combine's inputs and to.
    static let workflow = """
        version: 1
        tasks:
          make:
            shell: 'cp "in-$UPLOAD_TOKEN.txt" "made-$UPLOAD_TOKEN.txt"'
            inputs: ["in-${UPLOAD_TOKEN}.txt", "parts-${UPLOAD_TOKEN}/*.txt"]
            outputs: ["made-${UPLOAD_TOKEN}.txt"]
          fetch:
            download:
              url: "file://${FLOWRUN_WORKFLOW_DIR}/in-${UPLOAD_TOKEN}.txt"
              to: "got-${UPLOAD_TOKEN}.txt"
              headers: {Authorization: "Bearer ${API_KEY}"}
          pack:
            needs: make
            combine: {inputs: ["made-${UPLOAD_TOKEN}.txt"], to: "packed-${UPLOAD_TOKEN}.tar", format: tar}
          unpack:
            needs: pack
            decompress: {from: "packed-${UPLOAD_TOKEN}.tar", to: "unpacked-${UPLOAD_TOKEN}"}
          inside:
            workdir: "dir-${UPLOAD_TOKEN}"
            shell: 'cat here.txt > there.txt'
            inputs: [here.txt]
            outputs: [there.txt]

        """

    @Test func noSecretValueReachesAFileFlowrunWritesAndItsTasksStayUpToDate() async throws {
        let folder = try WorkflowFolder(
            Self.workflow,
            files: [
                "in-\(Self.token).txt": "input\n", "parts-\(Self.token)/a.txt": "a\n", "dir-\(Self.token)/here.txt": "here\n",
            ])
        let written = ["events.jsonl", "trace.json", "report.html", "junit.xml"]
        var upToDate: [Set<String>] = []
        for _ in 0..<2 {
            let result = try await FlowrunBinary.run(
                [
                    "run", "-v", "--events", "jsonl", "--events-file", written[0], "--trace", written[1], "--report-html", written[2],
                    "--junit", written[3], "--env", "API_KEY=\(Self.key)", "flow.yaml",
                ], in: folder.url, environment: ["UPLOAD_TOKEN": Self.token])
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            let events = try EventStream(result.stdout)
            upToDate.append(Set(events.named("task.skipped").filter { $0["reason"] as? String == "up-to-date" }.compactMap(\.task)))
            for text in [result.stdout, result.stderr] { expectNoSecret(in: Data(text.utf8), "the run's output") }
        }
        #expect(upToDate[0].isEmpty)
        #expect(upToDate[1] == ["make", "fetch", "pack", "unpack", "inside"], "\(upToDate[1])")
        #expect(try folder.read("unpacked-\(Self.token)/made-\(Self.token).txt") == "input\n")

        let state = folder.url.appendingPathComponent(".flowrun").path
        let files = try FileManager.default.subpathsOfDirectory(atPath: state)
        #expect(files.contains { $0.hasPrefix("tasks-") } && files.contains { $0.hasPrefix("runs/") }, "\(files)")
        for file in files {
            guard let bytes = FileManager.default.contents(atPath: state + "/" + file) else { continue }
            expectNoSecret(in: bytes, ".flowrun/\(file)")
        }
        for file in written { expectNoSecret(in: try Data(contentsOf: folder.url.appendingPathComponent(file)), file) }
        for command in [["logs", "-f", "flow.yaml"], ["runs", "flow.yaml"], ["report", "-f", "flow.yaml", "--markdown", "summary.md"]] {
            let result = try await FlowrunBinary.run(command, in: folder.url)
            #expect(result.status == 0, "\(command): \(result.stderr)")
            expectNoSecret(in: Data((result.stdout + result.stderr).utf8), "flowrun \(command.joined(separator: " "))")
        }
        expectNoSecret(in: try Data(contentsOf: folder.url.appendingPathComponent("summary.md")), "summary.md")
    }

    /// A download header's value taken from a variable under a plain name (`GH`, not masked:
    /// headers are never printed, whatever the name) reaches no file in the state folder: not
    /// the compiled plan cache (which kept it in clear), the task state nor the run record.
    @Test func aHeaderValueFromAPlainVariableReachesNoStateFile() async throws {
        let value = "gh-header-value-7f3a"
        let folder = try WorkflowFolder(
            """
            version: 1
            tasks:
              fetch:
                download:
                  url: "file://${FLOWRUN_WORKFLOW_DIR}/in.txt"
                  to: got.txt
                  headers: {Authorization: "Bearer ${GH}", Accept: text/plain}

            """, files: ["in.txt": "input\n"])
        for _ in 0..<2 {
            let result = try await FlowrunBinary.run(["run", "flow.yaml"], in: folder.url, environment: ["GH": value])
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            #expect(!(result.stdout + result.stderr).contains(value))
        }
        #expect(try folder.read("got.txt") == "input\n")
        let state = folder.url.appendingPathComponent(".flowrun").path
        let files = try FileManager.default.subpathsOfDirectory(atPath: state)
        #expect(files.contains { $0.hasPrefix("tasks-") } && files.contains { $0.hasPrefix("runs/") }, "\(files)")
        for file in files {
            guard let bytes = FileManager.default.contents(atPath: state + "/" + file) else { continue }
            #expect(bytes.range(of: Data(value.utf8)) == nil, "the header value is in .flowrun/\(file)")
        }
    }

    private func expectNoSecret(in bytes: Data, _ place: String) {
        for value in [Self.token, Self.key] {
            #expect(bytes.range(of: Data(value.utf8)) == nil, "a secret value is in \(place)")
        }
    }
}
