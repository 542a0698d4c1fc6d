import Foundation
import Testing

/// A secret value a task's fields took or its environment holds, printed by the task itself (`echo $TOKEN`, or a `cat`
/// failing on a path that holds it), reaches the console, the events file, the run record, `logs`
/// and the JUnit report as `***`, as GitHub Actions masks a secret in every log line.
@Suite struct SecretsInOutputTests {
    static let token = "s3cr3t-upload-value"
    /// Holds the token: masked whole only if the longest value is masked first.
    static let key = token + "-and-more"

    static let workflow = """
        version: 1
        tasks:
          say:
            inputs: ["in-${UPLOAD_TOKEN}.txt", "key-${API_KEY}.txt"]
            shell: |
              echo "out $UPLOAD_TOKEN and $API_KEY"
              echo "err $UPLOAD_TOKEN" >&2
              cat "in-$UPLOAD_TOKEN-missing.txt"

        """

    /// A URL that a secret value broke (a token with a `/`, as base64 ones have, put into
    /// `https://user:${TOKEN}@host/`) is named by the error as written, not with the value.
    @Test func anInvalidURLThatTookASecretIsNamedAsWritten() async throws {
        let workflow = """
            version: 1
            tasks:
              get:
                download: {url: "https://me:${API_PASSWORD}@example.com/f", to: f.bin}

            """
        let folder = try WorkflowFolder(workflow)
        for command in [["validate", "flow.yaml"], ["run", "--dry-run", "flow.yaml"], ["run", "flow.yaml"]] {
            let result = try await FlowrunBinary.run(command, in: folder.url, environment: ["API_PASSWORD": "s3cr/et?x"])
            #expect(result.status == 2, "\(command): \(result.stderr)")
            #expect(!(result.stdout + result.stderr).contains("s3cr"), "\(command): \(result.stderr)")
            #expect(result.stderr.contains("invalid URL 'https://me:${API_PASSWORD}@example.com/f'"), "\(command): \(result.stderr)")
        }
    }

    @Test func aSecretValueATaskPrintsIsMaskedInEveryLineFlowrunShowsOrWrites() async throws {
        let folder = try WorkflowFolder(Self.workflow, files: ["in-\(Self.token).txt": "in\n", "key-\(Self.key).txt": "key\n"])
        let run = try await FlowrunBinary.run(
            ["run", "--events", "plain", "--events-file", "events.jsonl", "--junit", "junit.xml", "--env", "API_KEY=\(Self.key)", "flow.yaml"],
            in: folder.url, environment: ["UPLOAD_TOKEN": Self.token])
        #expect(run.status != 0, "the task's cat fails: \(run.stdout)\(run.stderr)")

        let events = try EventStream(try folder.read("events.jsonl"))
        #expect(events.lines(of: "say") == ["out *** and ***"])
        let errors = events.lines(of: "say", "stderr")
        #expect(errors.first == "err ***" && errors.count == 2, "\(errors)")
        #expect(errors.last?.hasPrefix("cat: 'in-***-missing.txt'") == true || errors.last?.hasPrefix("cat: in-***-missing.txt") == true, "\(errors)")

        var places = [("the run's console output", Data((run.stdout + run.stderr).utf8))]
        for file in ["events.jsonl", "junit.xml"] { places.append((file, try Data(contentsOf: folder.url.appendingPathComponent(file)))) }
        let runs = folder.url.appendingPathComponent(".flowrun/runs")
        let records = try FileManager.default.subpathsOfDirectory(atPath: runs.path).filter { $0.hasSuffix(".jsonl") }
        #expect(records.count == 1, "\(records)")
        for record in records { places.append((".flowrun/runs/\(record)", try Data(contentsOf: runs.appendingPathComponent(record)))) }
        for command in [["logs", "-f", "flow.yaml"], ["logs", "-f", "flow.yaml", "say"]] {
            let logs = try await FlowrunBinary.run(command, in: folder.url)
            #expect(logs.status == 0, "\(command): \(logs.stderr)")
            places.append(("flowrun \(command.joined(separator: " "))", Data((logs.stdout + logs.stderr).utf8)))
        }
        for (place, bytes) in places {
            #expect(bytes.range(of: Data(Self.token.utf8)) == nil, "a secret value is in \(place)")
            #expect(bytes.range(of: Data("err ***".utf8)) != nil, "the masked line is not in \(place)")
        }
    }

    /// A secret in a task's environment that none of its fields took (a dotenv value, one from
    /// the process environment), printed by the task itself, is masked all the same; a value that
    /// is not secret, or a secret too short to mask (`SecretMask.minimumOutputLength`), stays.
    @Test func aSecretInTheTasksEnvironmentIsMaskedWhenTheTaskPrintsIt() async throws {
        let workflow = """
            version: 1
            dotenv: [.env]
            tasks:
              a: {shell: "echo token is $DEPLOY_TOKEN and $GH_SECRET, $PLAIN_NAME, count 12"}

            """
        let folder = try WorkflowFolder(workflow, files: [".env": "DEPLOY_TOKEN=s3cr3t-value\nPLAIN_NAME=shown-value\n"])
        let run = try await FlowrunBinary.run(
            ["run", "--events", "plain", "--events-file", "events.jsonl", "flow.yaml"], in: folder.url,
            environment: ["GH_SECRET": "proc-secret", "SHORT_TOKEN": "1"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let line = "token is *** and ***, shown-value, count 12"
        #expect(try EventStream(try folder.read("events.jsonl")).lines(of: "a") == [line])
        #expect(run.stdout.contains("[a] | \(line)"), "\(run.stdout)")
        for secret in ["s3cr3t-value", "proc-secret"] { #expect(!(run.stdout + run.stderr).contains(secret), "\(run.stdout)") }
    }

    /// A failure reason naming a secret of the task's environment that none of its fields took
    /// (an archive entry the packing task named after `$DEPLOY_TOKEN`, from the dotenv file)
    /// shows it as `***` wherever the reason goes, as the task's output lines do: the console's
    /// failure line, GitHub Actions' `::error`, the events file, JUnit, the run record and `logs`.
    /// An environment secret shorter than `SecretMask.minimumOutputLength` stays, as in output.
    @Test func aFailureReasonNamingASecretOfTheTasksEnvironmentIsMaskedWhereverItGoes() async throws {
        let workflow = """
            version: 1
            dotenv: [.env]
            tasks:
              pack:
                shell: 'mkdir -p "src/$DEPLOY_TOKEN" && echo x > "src/$DEPLOY_TOKEN/f.txt" && tar -cf a.tar -C src .'
                outputs: [a.tar]
              unpack: {needs: [pack], decompress: {from: a.tar, to: out}}

            """
        let token = "s3cr3t-dotenv"
        let folder = try WorkflowFolder(workflow, files: [".env": "DEPLOY_TOKEN=\(token)\n", "out/\(token)": "a file, not a folder\n"])
        let run = try await FlowrunBinary.run(
            ["run", "--events", "plain", "--events-file", "events.jsonl", "--junit", "junit.xml", "flow.yaml"], in: folder.url,
            environment: ["GITHUB_ACTIONS": "true", "SHORT_TOKEN": "out"])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let reason = "/out/***' exists and is not a folder, but the archive has a folder there"
        #expect(run.stdout.contains("[unpack] failed in "), "\(run.stdout)")
        #expect(run.stdout.contains(reason + "\n::error::unpack failed: '"), "\(run.stdout)")

        var places = [("the run's console output", run.stdout + run.stderr)]
        for file in ["events.jsonl", "junit.xml"] { places.append((file, try folder.read(file))) }
        let runs = folder.url.appendingPathComponent(".flowrun/runs")
        for record in try FileManager.default.subpathsOfDirectory(atPath: runs.path) where record.hasSuffix(".jsonl") {
            places.append((".flowrun/runs/\(record)", try String(contentsOf: runs.appendingPathComponent(record), encoding: .utf8)))
        }
        #expect(places.count == 4, "one run record")
        let logs = try await FlowrunBinary.run(["logs", "-f", "flow.yaml"], in: folder.url)
        places.append(("flowrun logs", logs.stdout + logs.stderr))
        for (place, text) in places {
            #expect(!text.contains(token), "a secret value is in \(place): \(text)")
            #expect(text.contains("/out/***"), "the masked reason is not in \(place): \(text)")
        }
    }
}
