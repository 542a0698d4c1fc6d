import Foundation
import Testing

/// `flowrun FILE TASK... -- ARGS...` hands ARGS to the named tasks, not to their needs.
@Suite struct TaskArgumentsTests {
    static let workflow = """
        version: 1
        tasks:
          prep: {shell: 'echo "prep $# ${FLOWRUN_ARGS-unset}"'}
          greet: {needs: prep, shell: 'printf "<%s>\\n" "$@"; eval "set -- $FLOWRUN_ARGS"; printf "[%s]\\n" "$@"'}
          py: {interpreter: python, shell: 'import sys; print(sys.argv[1:])'}
          argv: {shell: [echo, listed]}
          all: {needs: [greet]}
        """

    static let words = ["a b", "it's", "-x", "", "$HOME"]

    @Test func theNamedTasksGetTheArgumentsAndTheirNeedsDoNot() async throws {
        let (result, events, _) = try await RunTests().run(Self.workflow, ["greet", "py", "argv", "--"] + Self.words)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(events.lines(of: "prep") == ["prep 0 unset"])
        // As "$@", and read back from FLOWRUN_ARGS by the shell, the same words.
        let each = Self.words.map { "<\($0)>" } + Self.words.map { "[\($0)]" }
        #expect(events.lines(of: "greet") == each)
        #expect(events.lines(of: "py") == ["['a b', \"it's\", '-x', '', '$HOME']"])
        #expect(events.lines(of: "argv") == ["listed a b it's -x  $HOME"])
    }

    @Test func dryRunShowsTheArguments() async throws {
        let folder = try WorkflowFolder(Self.workflow)
        let result = try await FlowrunBinary.run(["run", "--dry-run", "flow.yaml", "greet", "--", "a b", "c"], in: folder.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("       args: 'a b' c\n"), "\(result.stdout)")
        // The env listing shows the value quoted whole: it is the text `'a b' c`.
        #expect(result.stdout.contains("env: FLOWRUN_ARGS=\"'a b' c\"\n"), "\(result.stdout)")
    }

    @Test func anOptionAfterTheTasksSaysHowToPassArguments() async throws {
        let folder = try WorkflowFolder(Self.workflow)
        let result = try await FlowrunBinary.run(["flow.yaml", "greet", "-k", "smoke"], in: folder.url)
        #expect(result.status == 2)
        #expect(result.stderr.contains("unknown option '-k'"), "\(result.stderr)")
        #expect(result.stderr.hasSuffix("flowrun: note: to hand arguments to the tasks you name, put them after '--': flowrun FILE TASK -- ARGS\n"))
    }

    @Test(arguments: [
        (
            ["all", "--", "x"],
            "flowrun: error: task 'all' is a group task: arguments after '--' go to shell tasks only; name those (flowrun FILE TASK... -- ARGS)\n"
        ),
        (["--", "x"], "flowrun: error: arguments after '--' go to the tasks named before it, and none is named: flowrun FILE TASK -- ARGS\n"),
    ])
    func argumentsWithNowhereToGoAreRefused(words: [String], message: String) async throws {
        let folder = try WorkflowFolder(Self.workflow)
        let result = try await FlowrunBinary.run(["flow.yaml"] + words, in: folder.url)
        #expect(result.status == 2)
        #expect(result.stderr == message)
    }

    /// Bytes that are not UTF-8 (`$'\xff'`, a Latin-1 file name) would reach the task as U+FFFD:
    /// such an argument is refused, named by its place after `--`, and nothing runs.
    @Test func anArgumentThatIsNotUTF8IsRefusedRatherThanChanged() throws {
        let folder = try WorkflowFolder(Self.workflow)
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        // Through a shell: Process takes its arguments as Strings, which cannot hold these bytes.
        shell.arguments = ["-c", #"exec "$0" flow.yaml greet -- ok "$(printf 'b\351\377')" >out.txt 2>err.txt"#, FlowrunBinary.url.path]
        shell.currentDirectoryURL = folder.url
        try shell.run()
        shell.waitUntilExit()
        let output = try folder.read("out.txt")
        #expect(shell.terminationStatus == 2, "\(output)")
        #expect(output == "")
        #expect(try folder.read("err.txt") == Self.notUTF8Error)
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent(".flowrun/runs").path))
    }

    static let notUTF8Error = """
        flowrun: error: argument 2 after '--' is not UTF-8 ('b\\xE9\\xFF'): flowrun hands arguments on as text and would change \
        these bytes; let the task find such a name itself (a glob, a file listing it)

        """
}
