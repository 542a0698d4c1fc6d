import FlowLoading
import FlowModel
import Testing

@Suite struct YAMLLoaderTests {
    func rendered(_ diagnostic: Diagnostic) -> String {
        "\(diagnostic.location.file):\(diagnostic.location.line):\(diagnostic.location.column): error: \(diagnostic.message.text)"
    }

    func load(_ text: String) throws -> YAMLDocument {
        try YAMLLoader.load(Array(text.utf8), file: "f.yaml")
    }

    @Test func everyNodeKeepsItsOneBasedPosition() throws {
        let document = try load("a: 1\nb:\n  - x\n  - {c: d}\n")
        guard case .mapping(let pairs)? = document.root?.content else { Issue.record("not a mapping"); return }
        #expect((pairs[0].key.line, pairs[0].key.column) == (1, 1))
        #expect((pairs[0].value.line, pairs[0].value.column) == (1, 4))
        #expect((pairs[1].value.line, pairs[1].value.column) == (3, 3))
        guard case .sequence(let items) = pairs[1].value.content else { Issue.record("not a list"); return }
        #expect((items[1].line, items[1].column) == (4, 5))
    }

    @Test func duplicateKeysAreReportedWithBothPositions() throws {
        let document = try load("a: 1\nb: 2\na: 3\n")
        #expect(document.diagnostics.map(rendered) == ["f.yaml:3:1: error: duplicate key 'a' (first at line 1, column 1)"])
    }

    /// Merged keys come where the `<<` is written, as go-yaml (Taskfile) keeps them, and keys the
    /// mapping sets itself win wherever they are. Order matters: matrix ids are in key order
    /// and tasks run in file order. `{<<: *os, py: [...]}` gave ids `b[3.1,linux]`, the merged
    /// key last, where every YAML reader puts `os` first.
    @Test func mergedKeysComeWhereTheMergeIsWritten() throws {
        let document = try load(
            """
            base: &base {os: linux, a: 9}
            first: {<<: *base, py: '3.1'}
            middle: {a: 1, <<: [*base, {b: 2, os: mac}], c: 3}
            last: {py: '3.1', <<: *base}

            """)
        guard case .mapping(let pairs)? = document.root?.content else { Issue.record("not a mapping"); return }
        func keysAndValues(_ node: Node) -> [String] {
            guard case .mapping(let pairs) = node.content else { return [] }
            return pairs.map { "\($0.key.scalar?.text ?? "?")=\($0.value.scalar?.text ?? "?")" }
        }
        #expect(keysAndValues(pairs[1].value) == ["os=linux", "a=9", "py=3.1"])
        #expect(keysAndValues(pairs[2].value) == ["a=1", "os=linux", "b=2", "c=3"])
        #expect(keysAndValues(pairs[3].value) == ["py=3.1", "os=linux", "a=9"])
        #expect(document.diagnostics.isEmpty)
    }

    /// `[*base: ]` (an alias read as a key) was reported as "expected a string as key" at the
    /// anchored mapping, 17 lines up, which is fine where it is; a key from an alias is placed
    /// where the alias is written, and a duplicate names that place too.
    @Test func anAliasUsedAsAKeyIsPlacedWhereItIsWritten() throws {
        let document = try load("base: &b {a: 1}\nname: &n x\nuse: {*b : 1, *n : 2, x: 3}\n")
        guard case .mapping(let pairs)? = document.root?.content, case .mapping(let used) = pairs[2].value.content else {
            Issue.record("not a mapping")
            return
        }
        #expect(used.map { [$0.key.line, $0.key.column] } == [[3, 7], [3, 15]])
        #expect(document.diagnostics.map(rendered) == ["f.yaml:3:23: error: duplicate key 'x' (first at line 3, column 15)"])
    }

    @Test func aliasesShareTheAnchoredNode() throws {
        let document = try load("x: &v {k: 1}\ny: *v\n")
        guard case .mapping(let pairs)? = document.root?.content else { Issue.record("not a mapping"); return }
        // The alias stands for the anchored node itself: same place, same content.
        #expect((pairs[1].value.line, pairs[1].value.column) == (pairs[0].value.line, pairs[0].value.column))
        guard case .mapping(let aliased) = pairs[1].value.content else { Issue.record("not a mapping"); return }
        #expect(aliased.map(\.key.scalar?.text) == ["k"])
        #expect(document.diagnostics.isEmpty)
    }

    @Test func aBillionLaughsFileIsRefused() {
        var text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...9 {
            text += "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]\n"
        }
        #expect {
            _ = try load(text)
        } throws: { error in
            (error as? YAMLError)?.diagnostic.message.text.contains("aliases expand to more than") == true
        }
    }

    /// One long value anchored and referenced many times: few nodes, gigabytes of text.
    @Test func aLongValueReferencedManyTimesIsRefusedAtTheAliasThatCrossesTheLimit() {
        let value = String(repeating: "x", count: 1 << 20)
        let text = "a: &long \"\(value)\"\nb:\n" + String(repeating: "  - *long\n", count: 70)
        #expect {
            _ = try load(text)
        } throws: { error in
            // 64 references make 64 MiB, the limit; the 65th, on line 67, crosses it.
            guard let diagnostic = (error as? YAMLError)?.diagnostic else { return false }
            return rendered(diagnostic) == "f.yaml:67:5: error: aliases expand to more than 64 MiB of text; "
                + "refusing to load (is a long value anchored and referenced many times?)"
        }
    }

    @Test func aliasBytesCountEveryScalarOfTheAnchoredNodeEachTime() throws {
        var limits = YAMLLimits()
        limits.maxAliasBytes = 40
        let anchored = "d: &d {key: value, list: [abc, de]}\n"  // 3 + 5 + 4 + 3 + 2 = 17 bytes
        #expect(try YAMLLoader.load(Array((anchored + "x: *d\ny: *d\n").utf8), file: "f.yaml", limits: limits).diagnostics.isEmpty)
        #expect {
            _ = try YAMLLoader.load(Array((anchored + "x: *d\ny: *d\nz: [*d]\n").utf8), file: "f.yaml", limits: limits)
        } throws: { error in
            (error as? YAMLError).map { rendered($0.diagnostic) }?.hasPrefix("f.yaml:4:5: error: aliases expand to more than") == true
        }
    }

    @Test func deepNestingIsRefusedAtItsPosition() {
        let text = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect {
            _ = try load(text)
        } throws: { error in
            guard let diagnostic = (error as? YAMLError)?.diagnostic else { return false }
            return diagnostic.message.text.hasPrefix("nesting is deeper than") && diagnostic.location.line == 1
        }
    }

    @Test func syntaxErrorsCarryLibyamlsProblemAndPosition() {
        #expect {
            _ = try load("a: [1, 2\nb: 3\n")
        } throws: { error in
            let text = (error as? YAMLError).map { rendered($0.diagnostic) } ?? ""
            return text.hasPrefix("f.yaml:") && text.contains("error: ") && text.contains("expected ','")
        }
    }

    /// A line with no `:` among a task's keys: libyaml notices only at the next key, which was
    /// where the error pointed (6:5, `retries`, a line that is fine). The error is at the line
    /// that lacks the `:`, as ruamel's "while scanning a simple key" mark has it, with a note
    /// saying where libyaml gave up.
    @Test func aLineWithoutAColonIsReportedAtThatLine() {
        #expect {
            _ = try load("version: 1\ntasks:\n  t:\n    shell: echo\n    oops\n    retries: 1\n")
        } throws: { error in
            guard let diagnostic = (error as? YAMLError)?.diagnostic else { return false }
            #expect(rendered(diagnostic) == "f.yaml:5:5: error: while scanning a simple key, could not find expected ':'")
            #expect(diagnostic.message.hint == "it starts here; the problem was found at line 6, column 5")
            return true
        }
    }

    /// libyaml reads no simple key longer than 1024 characters: a long task name (or env
    /// variable) was reported as "mapping values are not allowed in this context" with the hint
    /// to quote a ': ' in a value, or as "could not find expected ':'" on a line that has one.
    /// The error says the key is too long, at the key, whatever its place; 1024 is still read.
    @Test func aKeyLongerThanYAMLAllowsSaysSo() throws {
        let long = String(repeating: "k", count: 1025)
        let cases = [
            ("\(long): 1\n", "f.yaml:1:1"),
            ("version: 1\ntasks:\n  \(long):\n    shell: echo\n", "f.yaml:3:3"),
            ("version: 1\ntasks:\n  a:\n    shell: echo\n  \(long):\n    shell: echo\n", "f.yaml:5:3"),
            ("list:\n  - \"\(long)\": 1\n", "f.yaml:2:5"),
        ]
        for (text, place) in cases {
            #expect {
                _ = try load(text)
            } throws: { error in
                guard let diagnostic = (error as? YAMLError)?.diagnostic else { return false }
                #expect(
                    rendered(diagnostic)
                        == "\(place): error: key too long: YAML allows at most 1024 characters in a simple key; use a `? ` explicit key or shorten it"
                )
                #expect(diagnostic.message.hint == "this key has \(text.contains("\"") ? 1027 : 1025) characters")
                return true
            }
        }
        _ = try load(String(repeating: "k", count: 1024) + ": 1\n")
        // A long plain value with ': ' in it is still the value's problem, not its key's.
        #expect {
            _ = try load("shell: echo \(long) lint: 3\n")
        } throws: { error in
            (error as? YAMLError)?.diagnostic.message.hint?.hasPrefix("a ': ' inside an unquoted value") == true
        }
    }

    /// A line indented with a tab is said to be, and a key too long, wherever libyaml's marks
    /// place them: their lines end at every break libyaml reads (CR alone, NEL, LS), their
    /// columns count characters, and a BOM is not counted. After a BOM, a non-ASCII character or
    /// in a file with CR line ends, the tab was "found character that cannot start any token"
    /// and the long key libyaml's own message.
    @Test func aTabIndentAndALongKeyAreNamedWhateverTheLineEndsAndCharacters() {
        let tab = "a tab character cannot indent YAML; indent with spaces"
        let long = String(repeating: "k", count: 1025)
        let key = "key too long: YAML allows at most 1024 characters in a simple key; use a `? ` explicit key or shorten it"
        let cases: [([UInt8], String)] = [
            (Array("version: 1\n# caf\u{E9} \u{E9}\u{E9}\ntasks:\n  a:\n\tshell: echo\n".utf8), "f.yaml:5:1: error: \(tab)"),
            ([0xEF, 0xBB, 0xBF] + Array("version: 1\ntasks:\n  a:\n\tshell: echo\n".utf8), "f.yaml:4:1: error: \(tab)"),
            (Array("version: 1\rtasks:\r  a:\r\tshell: echo\r".utf8), "f.yaml:4:1: error: \(tab)"),
            (Array("# c\u{85}\tshell: x\n".utf8), "f.yaml:2:1: error: \(tab)"),
            (Array("version: 1\rtasks:\r  \(long):\r    shell: echo\r".utf8), "f.yaml:3:3: error: \(key)"),
            (Array("# \u{E9}\u{2028}\(long): 1\n".utf8), "f.yaml:2:1: error: \(key)"),
        ]
        for (bytes, expected) in cases {
            #expect {
                _ = try YAMLLoader.load(bytes, file: "f.yaml")
            } throws: { error in
                let text = (error as? YAMLError).map { rendered($0.diagnostic) } ?? ""
                #expect(text == expected)
                return true
            }
        }
    }

    /// A Latin-1 `é` (0xE9) in a file saved outside UTF-8: libyaml gave up at the byte after it
    /// (`3:24: invalid trailing UTF-8 octet (byte 0x22)`, the closing quote); the error names
    /// the byte that is not UTF-8, at its own column, counted in characters as every column is.
    @Test func aByteThatIsNotUTF8IsReportedAtItsColumnInHex() {
        for (prefix, column) in [("echo caf", 23), ("echo \u{E9}\u{E9} caf", 26)] {
            let bytes = Array("version: 1\ntasks:\n  a: {shell: \"\(prefix)".utf8) + [0xE9] + Array("\"}\n".utf8)
            #expect {
                _ = try YAMLLoader.load(bytes, file: "f.yaml")
            } throws: { error in
                guard let diagnostic = (error as? YAMLError)?.diagnostic else { return false }
                #expect(rendered(diagnostic) == "f.yaml:3:\(column): error: byte 0xE9 is not UTF-8: a workflow file is UTF-8 text")
                #expect(diagnostic.message.hint == "save the file as UTF-8 (0xE9 is 'é' in Latin-1)")
                return true
            }
        }
    }

    /// libyaml gives a bad byte's offset only, which flowrun turns into line and column: that
    /// count must agree with libyaml's own marks, which skip a leading BOM and end a line at a CR
    /// alone. `name: x<0xE9>` after a BOM was reported at 1:9, and a NUL on line 5 of a file with
    /// CR line ends at 1:44.
    @Test func aBadByteIsPlacedAsLibyamlPlacesEverythingElse() {
        let cases: [([UInt8], String)] = [
            ([0xEF, 0xBB, 0xBF] + Array("name: x".utf8) + [0xE9] + Array("\nversion: 1\n".utf8), "f.yaml:1:8"),
            ([0xEF, 0xBB, 0xBF] + Array("name: x".utf8) + [0] + Array("\nversion: 1\n".utf8), "f.yaml:1:8"),
            (Array("version: 1\rtasks:\r  t:\r    shell: x".utf8) + [0] + Array("y\r".utf8), "f.yaml:4:13"),
            (Array("version: 1\r\ntasks:\r\n  t:\r\n    shell: x".utf8) + [0xE9] + Array("\r\n".utf8), "f.yaml:4:13"),
            (Array("# a\u{85}# b\u{2028}name: x".utf8) + [0xE9] + Array("\n".utf8), "f.yaml:3:8"),
        ]
        for (bytes, place) in cases {
            #expect {
                _ = try YAMLLoader.load(bytes, file: "f.yaml")
            } throws: { error in
                let text = (error as? YAMLError).map { rendered($0.diagnostic) } ?? ""
                return text.hasPrefix(place + ": error: ")
            }
        }
    }

    @Test func plainScalarsAreTypedByTheCoreSchema() throws {
        let cases: [(String, Node.ScalarKind)] = [
            ("~", .null), ("null", .null), ("NULL", .null), ("true", .bool(true)), ("False", .bool(false)),
            ("12", .int(12)), ("-3", .int(-3)), ("+4", .int(4)), ("0x1F", .int(31)), ("0o17", .int(15)),
            ("1.5", .float), ("1.", .float), (".5", .float), ("1e3", .float), ("-2.5E-3", .float), (".inf", .float),
            ("-.inf", .float), ("+.INF", .float), (".NaN", .float), ("99999999999999999999", .float),
            // Not numbers in the core schema, though Swift's parsers read some of them.
            ("inf", .string), ("Infinity", .string), ("nan", .string), ("-.nan", .string), ("0x1p3", .string),
            ("0o8", .string), ("0x", .string), ("1_000", .string), (".", .string), ("1e", .string), ("1.2.3", .string),
            ("needs", .string), ("info", .string), ("nul", .string), ("truth", .string), ("t1", .string), ("-x", .string),
            ("'12'", .string), ("\"true\"", .string), ("!!str 12", .string),
        ]
        let document = try load(cases.map { "- \($0.0)\n" }.joined() + "- \n")
        guard case .sequence(let items)? = document.root?.content else { Issue.record("not a list"); return }
        #expect(items.map(\.scalarKind) == cases.map(\.1) + [.null])
    }

    // MARK: Parsing on a thread of its own (large inputs)

    /// The tree as text: every node with its position, so that two loads can be compared.
    func outline(_ node: Node?) -> String {
        guard let node else { return "nil" }
        let place = "@\(node.line):\(node.column)"
        switch node.content {
        case .scalar(let scalar): return "\(scalar.isPlain ? "" : "'")\(scalar.text)\(place)"
        case .sequence(let items): return "[" + items.map(outline).joined(separator: ",") + "]" + place
        case .mapping(let pairs): return "{" + pairs.map { outline($0.key) + ":" + outline($0.value) }.joined(separator: ",") + "}" + place
        }
    }

    /// Loads `text` both ways: parsed alongside the tree (from size 0) and on one thread.
    func loadBothWays(_ text: String) -> (concurrent: Result<YAMLDocument, YAMLError>, sequential: Result<YAMLDocument, YAMLError>) {
        let bytes = Array(text.utf8)
        func load(from size: Int) -> Result<YAMLDocument, YAMLError> {
            Result { try YAMLLoader.load(bytes, file: "f.yaml", concurrentFrom: size) }.mapError { $0 as! YAMLError }
        }
        return (load(from: 0), load(from: Int.max))
    }

    /// Many batches' worth of tasks, with an anchor, aliases, a merge and a duplicate key.
    func largeWorkflow(tasks: Int, tail: String = "") -> String {
        var text = "version: 1\ndefaults: &d {retries: 2}\ntasks:\n"
        for index in 0..<tasks {
            text += "  t\(index): {<<: *d, needs: [t\(max(index - 1, 0))], shell: [\"echo\", 'x \(index)']}\n"
        }
        text += "  t0: {shell: dup}\n"
        return text + tail
    }

    @Test func aLargeFileLoadsTheSameParsedAlongsideTheTree() throws {
        let text = largeWorkflow(tasks: 3000)
        #expect(text.utf8.count > 100_000)
        let (concurrent, sequential) = loadBothWays(text)
        let together = try concurrent.get()
        let alone = try sequential.get()
        #expect(outline(together.root) == outline(alone.root))
        #expect(together.diagnostics.map(rendered) == alone.diagnostics.map(rendered))
        #expect(together.diagnostics.map(rendered) == ["f.yaml:3004:3: error: duplicate key 't0' (first at line 4, column 3)"])
    }

    @Test func aSyntaxErrorAtTheEndOfALargeFileIsTheSameError() {
        let (concurrent, sequential) = loadBothWays(largeWorkflow(tasks: 3000, tail: "  broken: [1, 2\n"))
        #expect(throws: (any Error).self) { try concurrent.get() }
        if case .failure(let together) = concurrent, case .failure(let alone) = sequential {
            #expect(rendered(together.diagnostic) == rendered(alone.diagnostic))
        } else {
            Issue.record("both loads should fail")
        }
    }

    @Test func aLimitHitEarlyStopsTheParserAndGivesTheSameError() {
        // The builder gives up near the top while the parser still has most of the file to go.
        var text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...9 {
            text += "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]\n"
        }
        let (concurrent, sequential) = loadBothWays(text + largeWorkflow(tasks: 20_000).replacingOccurrences(of: "version: 1\n", with: ""))
        if case .failure(let together) = concurrent, case .failure(let alone) = sequential {
            #expect(rendered(together.diagnostic) == rendered(alone.diagnostic))
            #expect(together.diagnostic.message.text.contains("aliases expand to more than"))
        } else {
            Issue.record("both loads should fail")
        }
    }
}
