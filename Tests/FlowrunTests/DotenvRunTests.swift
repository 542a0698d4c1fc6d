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

    /// A compose user's `.env` says `URL=https://${HOST}/x`: the task got the literal text.
    /// It is expanded, from the keys before it and then the process environment.
    @Test func aValueExpandsEarlierKeysAndTheProcessEnvironment() async throws {
        let folder = try WorkflowFolder(
            "version: 1\ndotenv: [.env, .env.local]\ntasks:\n  show: {shell: 'echo \"$URL|$WHO|$RAW\"'}\n",
            files: [".env": "HOST=example.com\n", ".env.local": "URL=https://${HOST}/x\nWHO=${USER_NAME:-nobody}@$HOST\nRAW='${HOST}'\n"])
        let result = try await FlowrunBinary.run(
            ["run", "--events", "jsonl", "--no-record", "flow.yaml"], in: folder.url, environment: ["USER_NAME": "ann"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try EventStream(result.stdout).lines(of: "show") == ["https://example.com/x|ann@example.com|${HOST}"])
    }

    /// `${NAME:?message}` is compose's way to require a variable: validation stops at the `$`
    /// in the dotenv file with the message.
    @Test func aRequiredVariableUnsetIsAnErrorAtItsPlaceInTheFile() async throws {
        let folder = try WorkflowFolder(
            "version: 1\ndotenv: conf/.env\ntasks:\n  a: {shell: 'true'}\n",
            files: ["conf/.env": "# deploy\nTARGET=${DEPLOY_HOST:?set DEPLOY_HOST to the server}\n"])
        let result = try await FlowrunBinary.run(["validate", "flow.yaml"], in: folder.url, environment: [:])
        #expect(result.status == 2)
        #expect(result.stderr == "conf/.env:2:8: error: required variable DEPLOY_HOST is not set: set DEPLOY_HOST to the server\n")
    }

    /// A value that took a secret-looking variable's (from the file or the process environment)
    /// is masked in `--dry-run` as that variable is, whatever its own name.
    @Test func aValueThatTookASecretIsMasked() async throws {
        let folder = try WorkflowFolder(
            "version: 1\ndotenv: .env\ntasks:\n  a: {shell: 'true'}\n",
            files: [".env": "DEPLOY_TOKEN=s3cr3t-file\nREPO=https://bot:${DEPLOY_TOKEN}@git.example/x\nAUTH=Bearer $GH_TOKEN\nPLAIN=${HOST}\n"])
        let result = try await FlowrunBinary.run(
            ["run", "--dry-run", "flow.yaml"], in: folder.url, environment: ["GH_TOKEN": "s3cr3t-process", "HOST": "h"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("env: DEPLOY_TOKEN=*** REPO=*** AUTH=*** PLAIN=h"), "\(result.stdout)")
        #expect(!result.stdout.contains("s3cr3t"), "\(result.stdout)")
    }

    /// An included file's dotenv values are masked as the root file's are: by a secret-looking
    /// name, or for having taken a secret's value. They printed in clear in `--dry-run`, in the
    /// output of a task whose field took one, and were kept in the plan cache.
    @Test func anIncludedFilesDotenvValueThatTookASecretIsMasked() async throws {
        let folder = try WorkflowFolder(
            "version: 1\ninclude: {lib: lib/flow.yaml}\ntasks:\n  a: {shell: 'true'}\n",
            files: [
                "lib/flow.yaml": """
                version: 1
                dotenv: .env
                tasks:
                  b:
                    inputs: ["in-${REPO}.txt"]
                    shell: 'echo "took $REPO"; cat "in-$REPO-missing.txt"'

                """,
                "lib/.env": "DEPLOY_TOKEN=s3cr3t-file\nREPO=bot-${DEPLOY_TOKEN}\nAUTH=Bearer $GH_TOKEN\nPLAIN=${HOST}\n",
                "lib/in-bot-s3cr3t-file.txt": "in\n",
            ])
        let environment = ["GH_TOKEN": "s3cr3t-process", "HOST": "h"]
        let plan = try await FlowrunBinary.run(["run", "--dry-run", "flow.yaml"], in: folder.url, environment: environment)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("env: DEPLOY_TOKEN=*** REPO=*** AUTH=*** PLAIN=h"), "\(plan.stdout)")
        #expect(!plan.stdout.contains("s3cr3t"), "\(plan.stdout)")
        let run = try await FlowrunBinary.run(["run", "--events", "jsonl", "flow.yaml"], in: folder.url, environment: environment)
        #expect(run.status != 0, "the task's cat fails: \(run.stderr)")
        #expect(try EventStream(run.stdout).lines(of: "lib:b") == ["took ***"])
        #expect(!(run.stdout + run.stderr).contains("s3cr3t"), "\(run.stdout)\n\(run.stderr)")
        let state = folder.url.appendingPathComponent(".flowrun").path
        for case let name as String in FileManager.default.enumerator(atPath: state)?.allObjects ?? [] {
            let contents = (try? Data(contentsOf: URL(fileURLWithPath: state + "/" + name))) ?? Data()
            #expect(contents.range(of: Data("s3cr3t".utf8)) == nil, "\(name) holds the secret")
        }
    }
}
