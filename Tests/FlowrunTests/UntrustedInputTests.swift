import Foundation
import Testing

/// Files and command lines written to do harm, or by mistake: each is refused or shown safely
/// with a clear message, as a user would see it from the real binary.
@Suite struct UntrustedInputTests {
    /// Writes `text` as `flow.yaml` in a new folder and runs `flowrun arguments...` there.
    func flowrun(
        _ arguments: [String], file text: String, environment: [String: String] = [:]
    ) async throws
        -> (result: FlowrunBinary.Result, folder: TemporaryFolder)
    {
        let folder = try TemporaryFolder()
        try Data(text.utf8).write(to: folder.url.appendingPathComponent("flow.yaml"))
        return (try await FlowrunBinary.run(arguments, in: folder.url, environment: environment), folder)
    }

    @Test func aLongValueReferencedManyTimesIsRefusedBeforeAnythingIsPrinted() async throws {
        // 1 MiB referenced by 70 tasks: 70 nodes of aliases, 70 MiB of text.
        var text = "version: 1\nenv: {LONG: &long \"\(String(repeating: "x", count: 1 << 20))\"}\ntasks:\n"
        for index in 0..<70 { text += "  t\(index): {shell: \"true\", env: {COPY: *long}}\n" }
        let (result, _) = try await flowrun(["run", "--dry-run", "flow.yaml"], file: text)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        // The 65th alias crosses the 64 MiB limit, on the task line 68 of the file.
        #expect(
            result.stderr == "flow.yaml:68:36: error: aliases expand to more than 64 MiB of text; "
                + "refusing to load (is a long value anchored and referenced many times?)\n")
    }

    @Test(arguments: [["run"], ["run", "--dry-run"], ["validate"]])
    func anEnvNameOutsideTheFilesRuleIsAUsageError(command: [String]) async throws {
        // bash reads `BASH_FUNC_ls%%` from its environment as a function: it would replace `ls`.
        let (result, folder) = try await flowrun(
            command + ["--env", "BASH_FUNC_ls%%=() { touch owned; }", "flow.yaml"],
            file: "version: 1\ntasks:\n  list: {shell: [bash, -c, ls]}\n")
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(
            result.stderr.hasPrefix(
                "flowrun: error: invalid environment variable name 'BASH_FUNC_ls%%' in --env: use letters, digits and _, not starting with a digit\n"))
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("owned").path))
    }

    @Test func anEnvNameStartingWithADigitIsRefusedAndAValidOneIsTaken() async throws {
        let file = "version: 1\ntasks:\n  t: {shell: \"true\"}\n"
        let refused = try await flowrun(["run", "--dry-run", "--env", "2ND=x", "flow.yaml"], file: file).result
        #expect(refused.status == 2)
        #expect(refused.stderr.hasPrefix("flowrun: error: invalid environment variable name '2ND' in --env"))
        let taken = try await flowrun(["run", "--dry-run", "--env", "_MODE_2=fast", "flow.yaml"], file: file).result
        #expect(taken.status == 0)
        #expect(taken.stdout.contains("env: _MODE_2=fast\n"))
    }

    /// As make and ninja take it: `-j8` as well as `-j 8`.
    @Test(arguments: [["-j8"], ["-j", "8"], ["--concurrency", "8"], ["--concurrency=8"]])
    func concurrencyIsTakenInEverySpelling(option: [String]) async throws {
        let result = try await flowrun(["run", "--dry-run"] + option + ["flow.yaml"], file: "version: 1\ntasks:\n  t: {shell: \"true\"}\n").result
        #expect(result.stderr == "")
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("plan flow (flow.yaml): 1 of 1 task in 1 wave, concurrency 8, "))
    }

    /// A file that is not a regular one has no size to tell, and may never end: what is read of
    /// it is bounded, and the message says so rather than "0 bytes".
    @Test(arguments: [["validate"], ["run", "--dry-run"]])
    func aDeviceThatNeverEndsIsRefusedAtTheSizeLimit(command: [String]) async throws {
        let result = try await FlowrunBinary.run(command + ["/dev/zero"])
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(
            result.stderr == "/dev/zero: error: the file is larger than the 32 MiB limit of workflow files "
                + "(it is not a regular file: reading stopped there)\n")
    }

    /// The child's chdir fails before its exec, with the same errno: the reason names the
    /// workdir, not the program ("cannot run '/bin/sh'").
    @Test func aTaskWhoseWorkdirIsMissingFailsNamingTheWorkdir() async throws {
        let (result, folder) = try await flowrun(
            ["run", "--events", "jsonl", "flow.yaml"],
            file: """
                version: 1
                fail_fast: false
                tasks:
                  script: {shell: "echo hi", workdir: missing/folder}
                  argv: {shell: [./build.sh], workdir: flow.yaml}
                  found: {shell: [true], workdir: /nonexistent-flowrun-dir}
                """)
        #expect(result.status == 1)
        let events = try EventStream(result.stdout)
        let reasons = Dictionary(uniqueKeysWithValues: events.named("task.failed").map { ($0.task ?? "", $0["reason"] as? String) })
        let root = folder.url.standardizedFileURL.path
        #expect(
            reasons == [
                "script": "workdir '\(root)/missing/folder' does not exist",
                "argv": "workdir '\(root)/flow.yaml' is not a directory",
                "found": "workdir '/nonexistent-flowrun-dir' does not exist",
            ])
    }

    /// Values from `--env` or the process environment whose names look secret are printed as
    /// `***`, wherever they appear; values written in the file are shown as written.
    @Test func dryRunMasksSecretValuesFromTheCommandLineAndTheEnvironment() async throws {
        let (result, folder) = try await flowrun(
            ["run", "--dry-run", "--env", "API_TOKEN=cli-secret", "--env", "MODE=slow", "--env", "db_password=pw", "flow.yaml"],
            file: """
                version: 1
                env: {API_TOKEN: from-file, MODE: fast, FILE_KEY: written-here}
                tasks:
                  fetch:
                    download:
                      url: "https://example.com/get?token=${GH_TOKEN}&k=${API_TOKEN}&mode=${MODE}&f=${FILE_KEY}"
                      to: "out/${DEPLOY_CREDENTIALS}/file"
                      headers: {Authorization: "Bearer ${GH_TOKEN}", X-Home: "${FLOWRUN_TEST_HOME}"}
                    workdir: "w/${Signing_Secret}"
                  local:
                    shell: make
                    env: {GH_TOKEN: task-own-token}
                    workdir: "x/${GH_TOKEN}"
                """,
            environment: ["GH_TOKEN": "ghp_process", "DEPLOY_CREDENTIALS": "c", "Signing_Secret": "s", "FLOWRUN_TEST_HOME": "home"])
        let root = folder.url.standardizedFileURL.path
        #expect(result.stderr == "")
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                plan flow (flow.yaml): 2 of 2 tasks in 1 wave, concurrency 2, fail fast
                order: as a run at -j 1 starts them (priority, then file order, after their needs)
                waves: the parallel view (a wave needs only earlier waves; its tasks can run at once)

                  1. fetch  download  wave 1
                       url: https://example.com/get?token=***&k=***&mode=slow&f=written-here
                       to: \(root)/w/***/out/***/file
                       header: Authorization: ***
                       header: X-Home: ***
                       workdir: \(root)/w/***
                       env: FILE_KEY=written-here API_TOKEN=*** MODE=slow db_password=***
                  2. local  shell  wave 1
                       run: make
                       workdir: \(root)/x/task-own-token
                       env: FILE_KEY=written-here API_TOKEN=*** MODE=slow db_password=*** GH_TOKEN=task-own-token

                """)
    }
}
