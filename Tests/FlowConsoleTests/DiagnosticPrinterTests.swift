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
        #expect(DiagnosticPrinter().render(diagnostics) == """
            f.yaml:1:9: error: first
            f.yaml:3:2: error: second
            f.yaml:3:2: note: did you mean 'x'?
            g.yaml: error: cannot read the file: no such file

            """)
    }
}
