import FlowExport
import Testing

/// Quoting: a string is plain only where every YAML reader reads it back as that string.
@Suite struct YAMLScalarTests {
    static let cases: [(String, String)] = [
        ("build", "build"),
        ("test.unit", "test.unit"),
        ("ubuntu-latest", "ubuntu-latest"),
        ("actions/checkout@v7", "actions/checkout@v7"),
        ("", "\"\""),
        ("1st.setup", "\"1st.setup\""),
        ("1.0", "\"1.0\""),
        ("0x1F", "\"0x1F\""),
        ("yes", "\"yes\""),
        ("On", "\"On\""),
        ("null", "\"null\""),
        ("~", "\"~\""),
        ("-x", "\"-x\""),
        ("a: b", "\"a: b\""),
        ("a #b", "\"a #b\""),
        ("key:", "\"key:\""),
        ("[x]", "\"[x]\""),
        ("{x}", "\"{x}\""),
        ("*alias", "\"*alias\""),
        ("say \"hi\"", "\"say \\\"hi\\\"\""),
        ("back\\slash", "\"back\\\\slash\""),
        ("two\nlines", "\"two\\nlines\""),
        ("bell\u{7}", "\"bell\\x07\""),
        ("line\u{2028}sep", "\"line\\Lsep\""),
        ("trailing ", "\"trailing \""),
        ("${{ runner.temp }}/x", "\"${{ runner.temp }}/x\""),
    ]

    @Test(arguments: cases) func quoting(_ text: String, _ written: String) {
        #expect(YAMLScalar.quoted(text) == written)
    }

    @Test func aScriptIsALiteralBlockUnlessItCannotBeOne() {
        let document = YAMLWriter.document(.mapping([YAMLEntry("run", .text("echo a\n\necho b")), YAMLEntry("odd", .text(" leading"))]))
        #expect(document == "run: |-\n  echo a\n\n  echo b\nodd: \" leading\"\n")
    }

    @Test func mappingsInSequencesStartOnTheDashAndEmptyCollectionsAreFlow() {
        let document = YAMLWriter.document(
            .mapping([
                YAMLEntry(
                    "steps",
                    .sequence([
                        .mapping([YAMLEntry("uses", .string("a")), YAMLEntry("with", .mapping([YAMLEntry("k", .literal("1"))]))]),
                        .string("on"),
                    ])),
                YAMLEntry("none", .sequence([])),
                YAMLEntry("needs", .flowSequence([.string("a"), .string("b c")]), comment: "a comment\nwith a break"),
            ]), header: ["top"])
        #expect(
            document == """
                # top
                steps:
                  - uses: a
                    with:
                      k: 1
                  - "on"
                none: []
                # a comment\\nwith a break
                needs: [a, "b c"]

                """)
    }
}
