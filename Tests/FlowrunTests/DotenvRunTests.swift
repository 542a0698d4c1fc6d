import Foundation
import Testing

/// `dotenv:` files, in the order of precedence the issue gives.
@Suite struct DotenvRunTests {
    @Test func precedenceIsProcessThenDotenvFilesThenEnvThenTaskEnvThenTheCommandLine() async throws {
        let folder = try WorkflowFolder(
            """
            version: 1
            dotenv: [.env, "?.env.local", "?.env.absent"]
            env: {C: workflow}
            tasks:
              show:
                env: {D: task, E: task}
                shell: echo "$A $B $C $D $E"
            """,
            files: [".env": "A=dotenv\nB=dotenv\nC=dotenv\nD=dotenv\n", ".env.local": "B=local\n"])
        let result = try await FlowrunBinary.run(
            ["run", "--events", "jsonl", "--no-record", "flow.yaml", "--env", "E=cli"], in: folder.url,
            environment: ["A": "process", "B": "process"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try EventStream(result.stdout).lines(of: "show") == ["dotenv local workflow task cli"])
    }

    @Test func aMissingFileIsAnErrorUnlessMarkedOptional() async throws {
        let folder = try WorkflowFolder("version: 1\ndotenv: .env\ntasks:\n  a: {shell: 'true'}\n")
        let result = try await FlowrunBinary.run(["validate", "flow.yaml"], in: folder.url)
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "flow.yaml:2:9: error: dotenv file '.env' does not exist\nflow.yaml:2:9: note: mark a file that may be missing with '?': '?.env'\n")
    }

    /// A dotenv entry naming a folder is said to be one, at the entry, as an include naming a
    /// folder is: before, "cannot read dotenv file 'lib' as UTF-8 text" sent one looking at
    /// encodings. `?` does not make it optional: the folder is there.
    @Test func anEntryNamingAFolderIsReportedAsAFolderAtTheEntry() async throws {
        let folder = try WorkflowFolder(
            "version: 1\ndotenv: [lib, \"?lib\"]\ntasks:\n  a: {shell: 'true'}\n", files: ["lib/.env": "A=1\n"])
        let result = try await FlowrunBinary.run(["validate", "flow.yaml"], in: folder.url)
        #expect(result.status == 2)
        #expect(
            result.stderr == """
                flow.yaml:2:10: error: dotenv file 'lib' is a folder: name a KEY=VALUE file in it
                flow.yaml:2:15: error: dotenv file 'lib' is a folder: name a KEY=VALUE file in it

                """)
    }
}
