import Foundation
import Testing

/// `source <(flowrun --generate-completion-script bash)`, then TAB: what the shells complete.
@Suite struct CompletionTests {
    /// A project folder: a workflow, a broken one, other files, and a folder with its own flowrun.yaml.
    static func project() throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        let files = [
            "hello.yaml": "version: 1\ntasks:\n  build: {shell: echo b}\n  test: {needs: build, shell: echo t}\n  deploy: {needs: test, shell: echo d}\n",
            "broken.yaml": "version: 1\ntasks: [\n",
            "help.txt": "not a workflow\n",
            "notes.txt": "notes\n",
            "sub/flowrun.yaml": "version: 1\ntasks:\n  bundle: {shell: echo b}\n  bump: {shell: echo b}\n",
        ]
        for (path, text) in files {
            let url = folder.url.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        return folder
    }

    /// What bash offers for `flowrun WORDS<TAB>` (the last word is the one completed), as
    /// bash's completion calls the function the script registers.
    static func bash(_ words: [String], in folder: URL) async throws -> [String] {
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let script = """
            source <(flowrun --generate-completion-script bash) || exit 3
            COMP_WORDS=(flowrun \(quoted))
            COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            COMP_LINE="${COMP_WORDS[*]}"
            COMP_POINT=${#COMP_LINE}
            COMPREPLY=()
            _flowrun flowrun "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try await ShellSession.run("bash", script, in: folder)
        #expect(result.status == 0)
        #expect(result.stderr == "", "completion must be silent")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test func bashCompletesWorkflowFilesForFile() async throws {
        let project = try Self.project()
        #expect(try await Self.bash(["run", "he"], in: project.url) == ["hello.yaml"])
        #expect(try await Self.bash(["validate", "he"], in: project.url) == ["hello.yaml"])
        #expect(try await Self.bash(["list", "he"], in: project.url) == ["hello.yaml"])
        // No `/`: bash's readline adds it (see the next test).
        #expect(try await Self.bash(["graph", "s"], in: project.url) == ["sub"])
        #expect(try await Self.bash(["run", "sub/f"], in: project.url) == ["sub/flowrun.yaml"])
    }

    /// What a person at bash sees: `flowrun run s<TAB>` gives `sub/`, and the list of two TABs
    /// shows `sub/`, never `sub//` (readline adds a `/` to a folder of its own, and the
    /// completion's own made two). Typed on a real pseudo-terminal, through readline.
    @Test func bashCompletesAFolderWithOneSlashOnTheLineAndInTheList() async throws {
        let project = try Self.project()
        let result = try await RunTests.python(
            [
                "-c",
                #"""
                import os, pty, select, sys
                pid, fd = pty.fork()
                if pid == 0:
                    os.chdir(sys.argv[1])
                    os.environ.update(PATH=sys.argv[2] + ':' + os.environ['PATH'], PS1='READY> ', TERM='dumb', INPUTRC='/dev/null')
                    os.execvp('bash', ['bash', '--norc', '--noprofile', '-i'])
                out = b''
                def until(text):
                    global out
                    while text not in out:
                        if not select.select([fd], [], [], 120)[0]:
                            sys.exit('timed out waiting for %r in %r' % (text, out))
                        out += os.read(fd, 65536)
                    end = out.index(text) + len(text)
                    found, out = out[:end], out[end:]
                    return found
                until(b'READY> ')
                os.write(fd, b'source <(flowrun completion bash); echo SOURCED\n')
                until(b'\nSOURCED\r\n')
                os.write(fd, b'flowrun run s\t\x01echo LINE:\n')
                until(b'\nLINE:')
                sys.stdout.write(until(b'\r\n').decode())
                os.write(fd, b'flowrun graph \t\t')
                listed = until(b'hello.yaml')
                os.write(fd, b'\x01\x0becho DONE\n')
                listed += until(b'\nDONE\r\n')
                sys.stdout.write('LIST:' + listed.decode())
                os.write(fd, b'exit\n')
                """#, project.url.path, FlowrunBinary.url.deletingLastPathComponent().path,
            ])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.hasPrefix("flowrun run sub/\r\n"), "\(result.output)")
        let list = try #require(result.output.components(separatedBy: "LIST:").last)
        #expect(list.contains("sub/") && !list.contains("sub//"), "\(list)")
    }

    @Test func bashCompletesTaskIDsFromTheFileNamedEarlierOnTheLine() async throws {
        let project = try Self.project()
        #expect(try await Self.bash(["run", "hello.yaml", ""], in: project.url) == ["build", "test", "deploy"])
        #expect(try await Self.bash(["run", "hello.yaml", "te"], in: project.url) == ["test"])
        #expect(try await Self.bash(["run", "--keep-going", "hello.yaml", "build", ""], in: project.url) == ["test", "deploy"])
        #expect(try await Self.bash(["graph", "hello.yaml", "d"], in: project.url) == ["deploy"])
        #expect(try await Self.bash(["run", "-j", "2", "sub/flowrun.yaml", "bu"], in: project.url) == ["bundle", "bump"])
    }

    /// What bash offers for the command line `line` (the cursor at its end), with `COMP_WORDS`
    /// split as bash splits them: also at each `:` of `COMP_WORDBREAKS`, a word of its own.
    static func bashSplittingAtColons(_ line: String, in folder: URL) async throws -> [String] {
        let script = """
            source <(flowrun --generate-completion-script bash) || exit 3
            COMP_LINE='\(line)'
            COMP_POINT=${#COMP_LINE}
            COMP_WORDS=($(printf '%s' "$COMP_LINE" | sed 's/:/ : /g'))
            [[ "$COMP_LINE" == *[[:space:]] || "$COMP_LINE" == *: ]] && COMP_WORDS+=('')
            COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            COMPREPLY=()
            _flowrun flowrun "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try await ShellSession.run("bash", script, in: folder)
        #expect(result.status == 0)
        #expect(result.stderr == "", "completion must be silent")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// An included file's tasks are `NS:ID`, and bash splits the word at `:` (it is in
    /// `COMP_WORDBREAKS`), so `tools:g<TAB>` completed nothing: the whole word is completed,
    /// and bash is given what follows its last `:`, as bash-completion's
    /// `__ltrim_colon_completions` does.
    @Test func bashCompletesTheTasksOfAnIncludedFileAfterTheColon() async throws {
        let project = try Self.project()
        let files = [
            "flow.yaml": "version: 1\ninclude: {tools: tools/flowrun.yaml}\ntasks:\n  use: {needs: [\"tools:gen\"], shell: echo u}\n",
            "tools/flowrun.yaml": "version: 1\ntasks:\n  gen: {shell: echo g}\n  pack: {needs: gen, shell: echo p}\n",
        ]
        for (path, text) in files {
            let url = project.url.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        #expect(try await Self.bashSplittingAtColons("flowrun flow.yaml tools:g", in: project.url) == ["gen"])
        #expect(try await Self.bashSplittingAtColons("flowrun run flow.yaml tools:", in: project.url) == ["gen", "pack"])
        #expect(try await Self.bashSplittingAtColons("flowrun run flow.yaml tools:gen tools:p", in: project.url) == ["pack"])
        #expect(try await Self.bashSplittingAtColons("flowrun run flow.yaml to", in: project.url) == ["tools:gen", "tools:pack"])
        #expect(try await Self.bashSplittingAtColons("flowrun run flow.yaml ", in: project.url) == ["use", "tools:gen", "tools:pack"])
    }

    /// zsh's script hands the candidates to `_describe`, which takes `tools:gen` for the name
    /// `tools` described as `gen`: an included task's `:` comes escaped to zsh, and only to zsh.
    @Test func zshGetsTheColonOfAnIncludedTaskEscaped() async throws {
        let project = try Self.project()
        let files = [
            "flow.yaml": "version: 1\ninclude: {tools: tools/flowrun.yaml}\ntasks:\n  use: {needs: [\"tools:gen\"], shell: echo u}\n",
            "tools/flowrun.yaml": "version: 1\ntasks:\n  gen: {shell: echo g}\n  pack: {needs: gen, shell: echo p}\n",
        ]
        for (path, text) in files {
            let url = project.url.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        func callback(shell: String) async throws -> [String] {
            let result = try await FlowrunBinary.run(
                ["---completion", "run", "--", "positional@1", "3", "2", "flowrun", "run", "flow.yaml", "to"], in: project.url,
                environment: ["SAP_SHELL": shell])
            return result.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        #expect(try await callback(shell: "zsh") == ["tools\\:gen", "tools\\:pack"])
        #expect(try await callback(shell: "bash") == ["tools:gen", "tools:pack"])
    }

    @Test func bashCompletesTheTasksOfTheFileFoundWithNoFile() async throws {
        let project = try Self.project()
        let sub = project.url.appendingPathComponent("sub")
        #expect(try await Self.bash(["run", "bun"], in: sub) == ["bundle"])
        #expect(try await Self.bash(["run", "bundle", "bu"], in: sub) == ["bump"])
        #expect(try await Self.bash(["run", "-d", "sub", "bun"], in: project.url) == ["bundle"])
        #expect(try await Self.bash(["graph", "--dir", "sub", "fl"], in: project.url) == ["flowrun.yaml"])  // FILE is read from DIR
    }

    /// `flowrun build` runs the task build of the flowrun.yaml found, so `flowrun bu<TAB>`
    /// completes it, as `task bu<TAB>` does; the commands still complete, and after a task come
    /// the other tasks, not the commands.
    @Test func bashCompletesTasksOfTheFileFoundAsTheFirstWord() async throws {
        let project = try Self.project()
        let sub = project.url.appendingPathComponent("sub")
        #expect(try await Self.bash(["bun"], in: sub) == ["bundle"])
        #expect(try await Self.bash(["li"], in: sub) == ["list"])
        #expect(try await Self.bash(["bundle", "bu"], in: sub) == ["bump"])
        #expect(try await Self.bash(["he"], in: project.url) == ["help", "hello.yaml"])
    }

    @Test func bashCompletesNothingForABrokenOrMissingFile() async throws {
        let project = try Self.project()
        #expect(try await Self.bash(["run", "broken.yaml", ""], in: project.url) == [])
        #expect(try await Self.bash(["run", "missing.yaml", ""], in: project.url) == [])
    }

    @Test func bashCompletesPathsForJUnitAndEventsFile() async throws {
        let project = try Self.project()
        #expect(try await Self.bash(["run", "--junit", "no"], in: project.url) == ["notes.txt"])
        #expect(try await Self.bash(["run", "hello.yaml", "--events-file", "n"], in: project.url) == ["notes.txt"])
        #expect(try await Self.bash(["list", "-d", "s"], in: project.url) == ["sub"])
    }

    @Test(.enabled(if: ShellSession.path(of: "fish") != nil, "fish is not installed"))
    func fishCompletesFilesAndTaskIDs() async throws {
        let project = try Self.project()
        func fish(_ line: String) async throws -> [String] {
            let script = "flowrun --generate-completion-script fish | source; complete -C '\(line)'"
            let result = try await ShellSession.run("fish", script, in: project.url)
            #expect(result.status == 0)
            #expect(result.stderr == "")
            return result.stdout.split(separator: "\n").map { String($0.split(separator: "\t", omittingEmptySubsequences: false)[0]) }
        }
        #expect(try await fish("flowrun run he") == ["hello.yaml"])
        #expect(try await fish("flowrun run hello.yaml te") == ["test"])
        #expect(try await fish("flowrun run hello.yaml ").sorted() == ["build", "deploy", "test"])
        #expect(try await fish("flowrun run --junit no") == ["notes.txt"])
        #expect(try await fish("flowrun run s") == ["sub/"], "fish adds no slash of its own")
    }

    /// zsh is tested through what its script asks for and the callback it makes; with zsh
    /// installed, the script must also parse.
    @Test func zshScriptCompletesFilesTasksAndPaths() async throws {
        let project = try Self.project()
        let script = try await FlowrunBinary.run(["--generate-completion-script", "zsh"])
        #expect(script.status == 0)
        #expect(script.stdout.contains("---completion run -- positional@0"))  // FILE
        #expect(script.stdout.contains("---completion run -- positional@1"))  // TASK
        #expect(script.stdout.contains("'--junit[Write a JUnit XML report (one testcase per task) to this file.]:PATH:_files'"))
        #expect(script.stdout.contains("*.yaml *.yml"))  // validate and list
        // The callback zsh makes for `flowrun run hello.yaml te<TAB>`.
        let callback = try await FlowrunBinary.run(
            ["---completion", "run", "--", "positional@1", "3", "2", "flowrun", "run", "hello.yaml", "te"], in: project.url,
            environment: ["SAP_SHELL": "zsh"])
        #expect(callback.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } == ["test"])
        if ShellSession.path(of: "zsh") != nil {
            let parsed = try await ShellSession.run("zsh", "flowrun --generate-completion-script zsh > c.zsh && zsh -n c.zsh", in: project.url)
            #expect(parsed.status == 0, "\(parsed.stderr)")
        }
    }

    /// `flowrun completion SHELL` is listed in --help and prints what the hidden option prints.
    @Test func theCompletionCommandPrintsTheSameScriptAsTheHiddenOption() async throws {
        for shell in ["bash", "zsh", "fish"] {
            let command = try await FlowrunBinary.run(["completion", shell])
            let option = try await FlowrunBinary.run(["--generate-completion-script", shell])
            #expect(command.status == 0 && option.status == 0, "\(command.stderr)\(option.stderr)")
            #expect(!command.stdout.isEmpty && command.stdout == option.stdout, "\(shell)")
        }
        let help = try await FlowrunBinary.run(["--help"])
        #expect(help.stdout.contains("completion") && help.stdout.contains("Print the shell completion script"), "\(help.stdout)")
        let unknown = try await FlowrunBinary.run(["completion", "tcsh"])
        #expect(unknown.status == 2 && unknown.stdout.isEmpty, "\(unknown.stderr)")
    }

    /// `flowrun logs <TAB>`: the recorded runs' ids, `last` and the last run's tasks; after a
    /// run, its tasks, less those already named; `-f FILE` reads that file's records.
    @Test func bashCompletesRunIDsAndTheTasksOfARunForLogs() async throws {
        let project = try Self.project()
        let run = try await FlowrunBinary.run(["run", "--events", "plain", "hello.yaml"], in: project.url)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let runs = try await FlowrunBinary.run(["runs"], in: project.url)
        let id = try #require(runs.stdout.split(separator: "\n").dropFirst().first?.split(separator: " ").first.map(String.init))
        #expect(try await Self.bash(["logs", ""], in: project.url) == [id, "last", "build", "test", "deploy"])
        #expect(try await Self.bash(["logs", String(id.prefix(4))], in: project.url) == [id])
        #expect(try await Self.bash(["logs", id, ""], in: project.url) == ["build", "test", "deploy"])
        #expect(try await Self.bash(["logs", "last", "build", "t"], in: project.url) == ["test"])
        #expect(try await Self.bash(["logs", "-f", "hello.yaml", "last", "d"], in: project.url) == ["deploy"])
        // No records: nothing but `last`, and no error.
        #expect(try await Self.bash(["logs", "-f", "sub/flowrun.yaml", ""], in: project.url) == ["last"])
    }
}
