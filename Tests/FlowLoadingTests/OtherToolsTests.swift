import FlowLoading
import FlowModel
import Foundation
import Testing

/// What a go-task, GitHub Actions or Dagu user writes by habit, and what flowrun tells them.
@Suite struct OtherToolsTests {
    func loaded(_ text: String) -> LoadedWorkflow {
        WorkflowLoader.decode(Array(text.utf8), file: "Taskfile.yaml", directory: "/work", defaultName: "w")
    }

    /// "FILE:LINE:COL: error|warning: MESSAGE" and its note, as `flowrun validate` prints them.
    func lines(_ loaded: LoadedWorkflow) -> [String] {
        loaded.diagnostics.flatMap { diagnostic in
            let severity = diagnostic.severity == .error ? "error" : "warning"
            return ["\(diagnostic.location): \(severity): \(diagnostic.message.text)"]
                + (diagnostic.message.hint.map { ["\(diagnostic.location): note: \($0)"] } ?? [])
        }
    }

    @Test func goTaskDepsAndCmdsAreAnsweredWithNeedsAndShell() {
        let result = loaded(
            """
            version: 1
            tasks:
              lint: {shell: "true"}
              build:
                desc: Build the app
                deps: [lint]
                cmds:
                  - go build ./...
            """)
        #expect(
            lines(result) == [
                "Taskfile.yaml:5:5: error: unknown key 'desc' in task 'build'",
                "Taskfile.yaml:5:5: note: 'desc' is go-task's; flowrun says 'description: Build the app'",
                "Taskfile.yaml:6:5: error: unknown key 'deps' in task 'build'",
                "Taskfile.yaml:6:5: note: 'deps' is go-task's; flowrun says 'needs: [a, b]'",
                "Taskfile.yaml:7:5: error: unknown key 'cmds' in task 'build'",
                "Taskfile.yaml:7:5: note: 'cmds' is go-task's; flowrun says 'shell: make build' (a script; several lines in a 'shell: |' block) or 'shell: [make, build]' (a program and its arguments, no shell)",
                "Taskfile.yaml:4:3: error: task 'build' has no action: give exactly one of shell, download, decompress, combine, or 'needs' to group other tasks",
            ])
    }

    @Test func githubActionsStepKeysAreAnsweredWithFlowrunsKeys() {
        let result = loaded(
            """
            version: 1
            tasks:
              test:
                run: make test
                working-directory: app
                if: failure()
                timeout-minutes: 10
                continue-on-error: true
            """)
        let notes = result.diagnostics.compactMap(\.message.hint)
        #expect(
            notes == [
                "'run' is GitHub Actions'; flowrun says 'shell: make build' (a script; several lines in a 'shell: |' block) or 'shell: [make, build]' (a program and its arguments, no shell)",
                "'working-directory' is GitHub Actions'; flowrun says 'workdir: build' (relative to the workflow file's folder)",
                "'if' is GitHub Actions'; flowrun says 'when: failure' (one of success, failure, always; no expressions)",
                "'timeout-minutes' is GitHub Actions'; flowrun says 'timeout: 10m' (also 30s, 1h30m)",
                "'continue-on-error' is GitHub Actions'; flowrun says 'continue_on_error: true'",
            ])
        #expect(result.diagnostics.allSatisfy { $0.severity == .error && $0.location.file == "Taskfile.yaml" })
    }

    @Test(arguments: [
        ("deps", "needs: [a, b]"), ("depends", "needs: [a, b]"), ("dependencies", "needs: [a, b]"), ("cmds", "shell: "),
        ("command", "shell: "), ("script", "shell: "), ("run", "shell: "), ("dir", "workdir: "), ("working-directory", "workdir: "),
        ("desc", "description: "), ("if", "when: "), ("timeout-minutes", "timeout: "), ("ignore_error", "continue_on_error: true"),
        ("continueOn", "continue_on_error: true"), ("retry", "retries: "), ("retryPolicy", "retries: "),
    ])
    func eachForeignKeyNamesFlowrunsKeyAndItsForm(key: String, form: String) throws {
        let result = loaded("version: 1\ntasks:\n  t:\n    shell: \"true\"\n    \(key): x\n")
        let diagnostic = try #require(result.diagnostics.first)
        #expect(result.diagnostics.count == 1)
        #expect(diagnostic.message.text == "unknown key '\(key)' in task 't'")
        #expect("\(diagnostic.location)" == "Taskfile.yaml:5:5")
        let note = try #require(diagnostic.message.hint)
        #expect(note.hasPrefix("'\(key)' is "))
        #expect(note.contains("flowrun says '\(form)"))
    }

    @Test func aTypoOfFlowrunsOwnKeyStillGetsDidYouMean() {
        let result = loaded("version: 1\ntasks:\n  t:\n    shell: \"true\"\n    neds: [a]\n")
        #expect(result.diagnostics.map(\.message.hint) == ["did you mean 'needs'?"])
    }

    @Test func commandsWrittenAsArgvItemsGetAWarningWithTheStringForm() {
        let result = loaded(
            """
            version: 1
            tasks:
              build:
                shell: ["make build", "make test"]
            """)
        #expect(
            lines(result) == [
                "Taskfile.yaml:4:13: warning: the first item of 'shell' of task 'build', 'make build', is run as a program of that name, without a shell",
                "Taskfile.yaml:4:13: note: did you mean the string form 'shell: make build && make test'?",
            ])
        #expect(!result.diagnostics.hasErrors)
        #expect(result.workflow?.tasks.first?.action == .shell(.argv(["make build", "make test"])))
    }

    @Test func aVariableInTheProgramOfAnArgvListGetsAWarning() {
        let result = loaded("version: 1\ntasks:\n  cc:\n    shell: [\"${CC}\", -c, main.c]\n")
        #expect(result.diagnostics.map(\.severity) == [.warning])
        #expect(result.diagnostics.first?.message.hint == "did you mean the string form 'shell: ${CC} -c main.c'?")
    }

    @Test func anArgvListOfAProgramAndArgumentsWithSpacesIsFine() {
        let result = loaded("version: 1\ntasks:\n  t:\n    shell: [echo, \"hello world\", \"${HOME}\"]\n")
        #expect(result.diagnostics.isEmpty)
    }

    // MARK: Other tools' templating

    @Test func goTaskTemplatingAndGitHubExpressionsAreWarningsWithFlowrunsForm() {
        let result = loaded(
            """
            version: 1
            env: {VERSION: "1.0"}
            tasks:
              fetch:
                download: {url: "https://example.com/app-{{.VERSION}}.tgz", to: app.tgz}
              test:
                shell: echo ${{ matrix.os }}
              deploy:
                shell: ./deploy {{.VERSION}} ${{ secrets.TOKEN }}
            """)
        #expect(
            lines(result) == [
                "Taskfile.yaml:5:21: warning: 'download' of task 'fetch' holds '{{.VERSION}}', which flowrun does not expand",
                "Taskfile.yaml:5:21: note: '{{.VERSION}}' is go-task templating: flowrun passes env to scripts as $VERSION and expands ${VERSION} in paths",
                "Taskfile.yaml:7:12: warning: 'shell' of task 'test' holds '${{ matrix.os }}', which flowrun does not expand",
                "Taskfile.yaml:7:12: note: '${{ matrix.os }}' is a GitHub Actions expression: flowrun gives a matrix value to scripts as $MATRIX_OS and expands ${matrix.os} in paths",
                "Taskfile.yaml:9:12: warning: 'shell' of task 'deploy' holds '{{.VERSION}}', which flowrun does not expand",
                "Taskfile.yaml:9:12: note: '{{.VERSION}}' is go-task templating: flowrun passes env to scripts as $VERSION and expands ${VERSION} in paths",
            ])
        #expect(!result.diagnostics.hasErrors)
    }

    /// Go's own templates, which a script hands to docker or kubectl, are not go-task's.
    @Test func goTemplatesForOtherProgramsInAScriptAreLeftAlone() {
        let result = loaded(
            """
            version: 1
            tasks:
              ps: {shell: "docker ps --format '{{.Names}}' && kubectl get pods -o go-template='{{ .metadata.name }}'"}
              argv: {shell: [docker, inspect, --format, "{{json .Config}}", app]}
              described: {shell: "true", description: "uses {{.TASK}}"}
            """)
        #expect(result.diagnostics.isEmpty)
    }

    /// The issue's own example: a script with `{{.NAME}}` and no variable NAME in the file. An
    /// upper-case name is go-task's habit (Go templates of docker and kubectl name fields
    /// `.Names`, `.metadata.name`), so it is go-task's templating in a script too.
    @Test func anUpperCaseNameInAScriptIsGoTaskTemplating() {
        let result = loaded("version: 1\ntasks:\n  t: {shell: 'echo {{.NAME}}'}\n  u: {env: {A: '{{ .OUT_DIR }}'}, shell: 'true'}\n")
        #expect(
            lines(result) == [
                "Taskfile.yaml:3:14: warning: 'shell' of task 't' holds '{{.NAME}}', which flowrun does not expand",
                "Taskfile.yaml:3:14: note: '{{.NAME}}' is go-task templating: flowrun passes env to scripts as $NAME and expands ${NAME} in paths",
                "Taskfile.yaml:4:16: warning: 'env' of task 'u' holds '{{ .OUT_DIR }}', which flowrun does not expand",
                "Taskfile.yaml:4:16: note: '{{ .OUT_DIR }}' is go-task templating: flowrun passes env to scripts as $OUT_DIR and expands ${OUT_DIR} in paths",
            ])
        #expect(!result.diagnostics.hasErrors)
    }

    /// docker's `{{.ID}}` is the one upper-case field of the Go templates scripts commonly hand on.
    @Test func dockersIDFieldInAScriptIsLeftAlone() {
        let result = loaded("version: 1\ntasks:\n  t: {shell: \"docker ps --format '{{.ID}} {{.Names}}'\"}\n")
        #expect(result.diagnostics.isEmpty)
    }

    /// Other upper-case fields real scripts hand on: `docker info --format '{{.NCPU}}'`, and
    /// gox's `-output '{{.OS}}_{{.Arch}}'` (go-task's is the function `{{OS}}`, no dot).
    @Test func dockerInfosAndGoxsUpperCaseFieldsInAScriptAreLeftAlone() {
        let result = loaded(
            """
            version: 1
            tasks:
              cpus: {shell: "docker info --format '{{.NCPU}}'"}
              cross: {shell: "gox -osarch 'linux/amd64 darwin/arm64' -output 'dist/{{.OS}}_{{.Arch}}/{{.Dir}}'"}
            """)
        #expect(result.diagnostics.isEmpty, "\(lines(result))")
    }

    /// `${matrix.os}` in a script is sh's "Bad substitution" at run time, as `${{ matrix.os }}`
    /// was: flowrun expands it only in paths, and a script reads `$MATRIX_OS`. An env value is
    /// not expanded either. `$${matrix.os}` in a path is flowrun's literal; in a script, text.
    @Test func aMatrixReferenceInAScriptOrAnEnvValueIsAWarning() {
        let result = loaded(
            """
            version: 1
            tasks:
              test:
                matrix: {os: [linux, mac]}
                env: {OS: "${matrix.os}"}
                workdir: "build-${matrix.os}"
                shell: echo ${matrix.os} $${matrix.os}
            """)
        #expect(
            lines(result) == [
                "Taskfile.yaml:5:15: warning: 'env' of task 'test' holds '${matrix.os}', which flowrun does not expand",
                "Taskfile.yaml:5:15: note: '${matrix.os}' expands in paths, URLs and workdir only: the task has the value in its env as $MATRIX_OS",
                "Taskfile.yaml:7:12: warning: 'shell' of task 'test' holds '${matrix.os}', which flowrun does not expand",
                "Taskfile.yaml:7:12: note: '${matrix.os}' expands in paths, URLs and workdir only: the task has the value in its env as $MATRIX_OS",
            ])
        #expect(!result.diagnostics.hasErrors)
    }

    @Test func goTasksOwnVariablesInAScriptAreItsTemplating() {
        let result = loaded("version: 1\ntasks:\n  t: {shell: 'go test {{.CLI_ARGS}}'}\n")
        #expect(result.diagnostics.map(\.severity) == [.warning])
        #expect(result.diagnostics.first?.message.hint?.hasPrefix("'{{.CLI_ARGS}}' is go-task's own variable") == true)
    }

    /// go-task's own variables are not in a flowrun task's env: following a note that said
    /// `$CLI_ARGS` or `$TASK` gave an empty value. The note names flowrun's way to each.
    @Test func goTasksOwnVariablesGetFlowrunsWayToTheValueNotTheirOwnName() {
        let result = loaded(
            """
            version: 1
            tasks:
              a: {shell: 'go test {{.CLI_ARGS}}'}
              b: {shell: 'echo {{.TASK}}'}
              c: {shell: 'cd {{.ROOT_DIR}}'}
              d: {shell: 'ls {{.TASKFILE_DIR}}'}
              e: {shell: 'echo {{.CHECKSUM}}'}
              f: {env: {TASK: x}, shell: 'echo {{.TASK}}'}
            """)
        let notes = result.diagnostics.compactMap(\.message.hint)
        #expect(
            notes == [
                "'{{.CLI_ARGS}}' is go-task's own variable: flowrun hands the words after '--' (flowrun FILE TASK -- ARGS) to a script as \"$@\" and as $FLOWRUN_ARGS, shell-quoted",
                "'{{.TASK}}' is go-task's own variable: flowrun gives a task its id as $FLOWRUN_TASK",
                "'{{.ROOT_DIR}}' is go-task's own variable: flowrun passes the workflow file's folder to scripts as $FLOWRUN_WORKFLOW_DIR and expands ${FLOWRUN_WORKFLOW_DIR} in paths",
                "'{{.TASKFILE_DIR}}' is go-task's own variable: a flowrun task runs in its workdir (by default its file's folder), so a script reads it as $PWD",
                "'{{.CHECKSUM}}' is go-task's own variable, which flowrun does not set",
                "'{{.TASK}}' is go-task templating: flowrun passes env to scripts as $TASK and expands ${TASK} in paths",
            ])
        #expect(!result.diagnostics.hasErrors)
    }

    /// The `dotenv:` the note of `dotenvs`/`env_file` gives loads as written: in a `[...]` list
    /// YAML reads an unquoted `?.env.local` as a mapping key, so the note must quote it.
    @Test(arguments: ["dotenvs", "env_file", "env_files"])
    func theDotenvFormANoteGivesLoadsAsWritten(key: String) throws {
        let result = loaded("version: 1\n\(key): [.env]\ntasks:\n  t: {shell: 'true'}\n")
        let note = try #require(result.diagnostics.first?.message.hint)
        let start = try #require(note.range(of: "flowrun says '")).upperBound
        let form = String(note[start...].prefix { $0 != "\n" }.split(separator: "' (").first ?? "")
        #expect(form.hasPrefix("dotenv: ["), "\(note)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowrun-dotenv-note-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("A=1\n".utf8).write(to: folder.appendingPathComponent(".env"))
        let copied = WorkflowLoader.decode(
            Array("version: 1\n\(form)\ntasks:\n  t: {shell: 'true'}\n".utf8), file: "flow.yaml", directory: folder.path, defaultName: "w")
        #expect(lines(copied) == [], "\(form)")
        #expect(copied.workflow?.dotenv.map(\.name) == ["A"])
    }

    @Test func varsAndPlatformsAreAnsweredWithANote() {
        let result = loaded(
            """
            version: 1
            vars: {A: b}
            tasks:
              t:
                shell: "true"
                vars: {A: b}
                platforms: [linux]
            """)
        #expect(
            lines(result) == [
                "Taskfile.yaml:2:1: error: unknown key 'vars' in the top level",
                "Taskfile.yaml:2:1: note: 'vars' is go-task's; flowrun says 'env: {NAME: value}' (scripts read $NAME; ${NAME} expands in paths and URLs)",
                "Taskfile.yaml:6:5: error: unknown key 'vars' in task 't'",
                "Taskfile.yaml:6:5: note: 'vars' is go-task's; flowrun says 'env: {NAME: value}' (scripts read $NAME; ${NAME} expands in paths and URLs)",
                "Taskfile.yaml:7:5: error: unknown key 'platforms' in task 't'",
                "Taskfile.yaml:7:5: note: 'platforms' is go-task's; flowrun runs a task wherever it runs: test `uname` in the script to skip a platform",
            ])
    }
}
