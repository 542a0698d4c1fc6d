import FlowLoading
import FlowModel
import Testing

/// Issue 19: a green run means correct output. `combine` with the default `concat` into
/// `out.tar.gz` ran green and left a file that no tar reads; validate now warns at `to`.
@Suite struct CombineNameTests {
    func loaded(_ combine: String) -> LoadedWorkflow {
        WorkflowLoader.decode(
            Array("version: 1\ntasks:\n  pack:\n    combine: {inputs: [a.txt, b.txt], \(combine)}\n".utf8), file: "flow.yaml",
            directory: "/work", defaultName: "w")
    }

    func lines(_ loaded: LoadedWorkflow) -> [String] {
        loaded.diagnostics.map { "\($0.location): \($0.severity): \($0.message.text)" + ($0.message.hint.map { " / \($0)" } ?? "") }
    }

    @Test func concatIntoATarGzNameIsWarnedAtToWithTheFormatToAskFor() {
        let result = loaded("to: dist/out.tar.gz")
        #expect(
            lines(result) == [
                "flow.yaml:4:43: warning: 'to' of 'combine' of task 'pack' is named like a gzip-compressed tar archive, but the default format concat joins the inputs' bytes into it / write 'format: tar.gz' to make one, or 'format: concat' to join the bytes as they are"
            ])
        #expect(!result.diagnostics.hasErrors)
    }

    @Test(arguments: [("out.tgz", "tar.gz"), ("OUT.ZIP", "zip"), ("out.tar", "tar"), ("out.png", "image")])
    func eachArchiveNameNamesItsFormat(name: String, format: String) {
        let result = loaded("to: \(name)")
        #expect(result.diagnostics.map(\.severity) == [.warning])
        #expect(result.diagnostics.first?.message.hint?.hasPrefix("write 'format: \(format)'") == true, "\(lines(result))")
    }

    @Test func aTarXzNameSaysWhichArchivesCombineMakes() {
        let result = loaded("to: out.tar.xz")
        #expect(result.diagnostics.map(\.severity) == [.warning])
        #expect(result.diagnostics.first?.message.hint?.contains("'format: tar', 'tar.gz' or 'zip'") == true, "\(lines(result))")
    }

    /// A written format that another format's name contradicts: `format: tar` into
    /// `out.tar.gz` ran green and left a tar that `tar -xzf` refuses ("not in gzip format");
    /// `format: image` into `out.jpg` left a PNG named as a JPEG.
    @Test func aWrittenFormatIntoAnotherFormatsNameIsWarnedAtTo() {
        let result = loaded("to: dist/out.tar.gz, format: tar")
        #expect(
            lines(result) == [
                "flow.yaml:4:43: warning: 'to' of 'combine' of task 'pack' is named like a gzip-compressed tar archive, but 'format: tar' writes a tar archive into it / write 'format: tar.gz' to make one, or name 'to' for the format"
            ])
        #expect(!result.diagnostics.hasErrors)
    }

    @Test(arguments: [
        "to: out.zip, format: tar", "to: out.tar, format: zip", "to: out.png, format: tar.gz", "to: out.jpg, format: image",
        "to: out.JPEG, format: image", "to: out.tar.xz, format: tar", "to: out.tar, format: image",
    ])
    func eachContradictingNameIsWarned(fields: String) {
        #expect(loaded(fields).diagnostics.map(\.severity) == [.warning], "\(lines(loaded(fields)))")
    }

    @Test(arguments: [
        "to: out.txt", "to: all.gz", "to: .tar", "to: out.tar.gz, format: tar.gz", "to: out.tar.gz, format: concat",
        "to: out.tgz, format: tar.gz", "to: app.jar, format: zip", "to: OUT.PNG, format: image", "to: backup, format: tar",
    ])
    func otherNamesOrAWrittenFormatAreFine(fields: String) {
        #expect(loaded(fields).diagnostics.isEmpty, "\(lines(loaded(fields)))")
    }
}
