import FlowConsole
import FlowModel
import Testing

@Suite struct DiagnosticPrinterTests {
    @Test func rendersSortedWithHintsAndWholeFileProblems() {
        let diagnostics = [
            Diagnostic(.init("second", hint: "did you mean 'x'?"), at: SourceLocation(file: "f.yaml", line: 3, column: 2)),
            Diagnostic(.init("first"), at: SourceLocation(file: "f.yaml", line: 1, column: 9)),
            Diagnostic(.init("cannot read the file: no such file"), at: SourceLocation(file: "g.yaml", line: 0, column: 0)),
        ]
        #expect(
            DiagnosticPrinter().render(diagnostics) == """
                f.yaml:1:9: error: first
                f.yaml:3:2: error: second
                f.yaml:3:2: note: did you mean 'x'?
                g.yaml: error: cannot read the file: no such file

                """)
    }

    /// A value from the file can hold any character: none may reach the reader raw, or start a
    /// line that a GitHub Actions runner would take as a command.
    @Test func controlCharactersFromTheFileAreShownAsEscapes() {
        let diagnostics = [
            Diagnostic(
                .init("invalid value 'x\n::error file=a::owned' for 'when'", hint: "did you mean '\u{1B}[2Jy'?"),
                at: SourceLocation(file: "f.yaml", line: 2, column: 3)),
            Diagnostic(.init("invalid task id 'a\0\t\r\u{7F}\u{85}\u{9B}31m\u{2028}b'"), at: SourceLocation(file: "g\n.yaml", line: 1, column: 1)),
        ]
        #expect(
            DiagnosticPrinter().render(diagnostics) == #"""
                f.yaml:2:3: error: invalid value 'x\n::error file=a::owned' for 'when'
                f.yaml:2:3: note: did you mean '\x1B[2Jy'?
                g\n.yaml:1:1: error: invalid task id 'a\0\t\r\x7F\x85\x9B31m\u2028b'

                """#)
    }

    @Test func textWithoutControlCharactersIsUnchanged() {
        let text = "unknown key 'shel' in task 'b\u{E9}' \u{1F600} \\n \u{A0}"
        #expect(VisibleText.escaped(text) == text)
    }

    /// Under GitHub Actions the annotation lands on the file the runner decodes from `file=`, and
    /// says what the console line says: a `\r` in the path or a quoted value loses nothing.
    @Test func aGitHubAnnotationDecodesToTheExactPathAndTheConsoleMessage() {
        let diagnostic = Diagnostic(
            .init("unknown key 'sh\rell' in task 'a'", hint: "did you mean 'shell'?"),
            at: SourceLocation(file: "x\ry,z:w%0A::e\nf.yaml", line: 5, column: 5))
        let lines = DiagnosticPrinter(githubAnnotations: true).render([diagnostic]).split(separator: "\n")
        #expect(
            lines.last
                == #"::error file=x%0Dy%2Cz%3Aw%250A%3A%3Ae%0Af.yaml,line=5,col=5::unknown key 'sh\rell' in task 'a'%0Adid you mean 'shell'?"#)
    }

    /// Under GitHub Actions the console line quotes the file too, and the runner reads the older
    /// `##[NAME]` form anywhere in a line: a key written `"##[error]forged"` made a second
    /// annotation ('forged' in task 'a''). Such a line is shown as text, between flowrun's own
    /// `::stop-commands::` and its resume, as the run's own lines are (`PlainLog`).
    @Test func aConsoleLineQuotingACommandRunsNone() {
        let diagnostic = Diagnostic(
            .init("unknown key '##[error]forged' in task 'a'", hint: "did you mean '##[endgroup]'?"),
            at: SourceLocation(file: "f.yaml", line: 5, column: 5))
        var printer = DiagnosticPrinter(githubAnnotations: true)
        printer.stopToken = "flowrun-T"
        #expect(
            printer.render([diagnostic]).split(separator: "\n") == [
                "::stop-commands::flowrun-T", "f.yaml:5:5: error: unknown key '##[error]forged' in task 'a'", "::flowrun-T::",
                "::stop-commands::flowrun-T", "f.yaml:5:5: note: did you mean '##[endgroup]'?", "::flowrun-T::",
                "::error file=f.yaml,line=5,col=5::unknown key '##[error]forged' in task 'a'%0Adid you mean '##[endgroup]'?",
            ])
        #expect(DiagnosticPrinter().render([diagnostic]).split(separator: "\n").count == 2)
    }
}
