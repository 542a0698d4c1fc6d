import Foundation
import Testing

/// `flowrun list`, as `task --list` lists a Taskfile's tasks.
@Suite struct ListTests {
    static let workflow = """
        version: 1
        name: site
        queues:
          network: { concurrency: 2 }
        tasks:
          fetch:
            description: Download the pages
            queue: network
            download: { url: "https://example.com/", to: out/index.html }
          build:
            description: Build the site
            needs: fetch
            shell: make site
          test:
            needs: [build, fetch]
            when: always
            priority: high
            shell: [make, test]

        """

    static func project() throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        try Data(workflow.utf8).write(to: folder.url.appendingPathComponent("flowrun.yaml"))
        return folder
    }

    @Test func listPrintsEachTaskWithItsDescriptionNeedsAndQueueInFileOrder() async throws {
        let project = try Self.project()
        let result = try await FlowrunBinary.run(["list", "flowrun.yaml"], in: project.url)
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(
            result.stdout == """
                tasks of site (flowrun.yaml):
                * fetch:  Download the pages  (queue: network)
                * build:  Build the site  (needs: fetch)
                * test:   (needs: build, fetch)

                """)
    }

    @Test func listWithNoFileListsFlowrunYamlOfTheCurrentFolder() async throws {
        let project = try Self.project()
        let result = try await FlowrunBinary.run(["list"], in: project.url)
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("tasks of site (flowrun.yaml):\n* fetch:"))
    }

    @Test func listJSONIsAnArrayOfTasksForScripts() async throws {
        let project = try Self.project()
        let result = try await FlowrunBinary.run(["list", "--json"], in: project.url)
        #expect(result.status == 0)
        let tasks = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(tasks.map { $0["id"] as? String } == ["fetch", "build", "test"])
        #expect(tasks[0]["description"] as? String == "Download the pages")
        #expect(tasks[0]["queue"] as? String == "network")
        #expect(tasks[0]["kind"] as? String == "download")
        #expect(tasks[0]["needs"] as? [String] == [])
        #expect(tasks[1]["needs"] as? [String] == ["fetch"])
        #expect(tasks[2]["needs"] as? [String] == ["build", "fetch"])
        #expect(tasks[2]["description"] is NSNull)
        #expect(tasks[2]["queue"] is NSNull)
        #expect(tasks[2]["kind"] as? String == "shell")
        #expect(tasks[2]["when"] as? String == "always")
        #expect(tasks[2]["priority"] as? String == "high")
        #expect(tasks[2]["line"] as? Int == 14)
    }

    @Test func listOfAnInvalidFilePrintsItsProblemsAndExits2() async throws {
        let folder = try TemporaryFolder()
        try Data("version: 1\ntasks:\n  a: {needs: nope, shell: echo a}\n".utf8).write(to: folder.url.appendingPathComponent("bad.yaml"))
        for arguments in [["list", "bad.yaml"], ["list", "--json", "bad.yaml"]] {
            let result = try await FlowrunBinary.run(arguments, in: folder.url)
            #expect(result.status == 2)
            #expect(result.stdout == "")
            #expect(result.stderr.contains("bad.yaml:3:"))
            #expect(result.stderr.contains("nope"))
        }
    }
}
