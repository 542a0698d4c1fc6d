import FlowModel
import Testing

@testable import FlowLoading

/// `.env` files as docker compose reads them.
@Suite struct DotenvTests {
    @Test func commentsExportAndBothQuotesReadAsComposeReadsThem() {
        let text = """
            # a comment
            export A=plain
            B = spaced value # a comment after a space
            C=no#comment
            D='single $x \\n kept'
            E="double \\"quoted\\"\\tand\\nescaped \\$HOME"
            F="two
            lines"
            G=
            \u{20}
            """
        let (entries, problems) = Dotenv.parse(text, file: ".env")
        #expect(problems.isEmpty, "\(problems)")
        #expect(entries.map(\.name) == ["A", "B", "C", "D", "E", "F", "G"])
        #expect(
            entries.map(\.value) == [
                "plain", "spaced value", "no#comment", "single $x \\n kept", "double \"quoted\"\tand\nescaped $HOME", "two\nlines", "",
            ])
    }

    /// `export<TAB>KEY=...` was "invalid environment variable name 'export\tKEY'"; compose and
    /// python-dotenv read it as `export KEY=...`.
    @Test func exportMayBeFollowedByATab() {
        let (entries, problems) = Dotenv.parse("export\tA=1\n  export \t B = 2\nexportC=3\n", file: ".env")
        #expect(problems.isEmpty, "\(problems)")
        #expect(entries.map { "\($0.name)=\($0.value)" } == ["A=1", "B=2", "exportC=3"])
    }

    @Test func aBadLineIsReportedAtItsLineAndTheRestIsRead() {
        let (entries, problems) = Dotenv.parse("A=1\n  JUSTAWORD\n1X=2\nB=\"open\nC=3\n", file: "conf/.env")
        #expect(entries.map(\.name) == ["A"])
        #expect(
            problems.map { "\($0.location): \($0.message.text)" } == [
                "conf/.env:2:3: expected KEY=VALUE (a comment starts with #)",
                "conf/.env:3:1: invalid environment variable name '1X': use letters, digits and _, not starting with a digit",
                "conf/.env:4:1: the value's \" is never closed",
            ])
    }
    /// Text after a value's closing quote was dropped without a word: `A='abc'def` set `abc`
    /// (the shell gives `abcdef`; python-dotenv skips the line with a warning). It is an error at
    /// the text; blanks and a comment after the quote are fine, also after a value on two lines.
    @Test func textAfterTheClosingQuoteIsRefusedAtIt() {
        let (entries, problems) = Dotenv.parse(
            "A='abc'def\nB=\"abc\" # note\nC=\"x\"\"y\"\nD=\"two\nlines\"  tail\nE='e'#c\nF=\"f\"\t\n", file: ".env")
        #expect(entries.map(\.name) == ["B", "E", "F"])
        #expect(entries.map(\.value) == ["abc", "e", "f"])
        #expect(
            problems.map { "\($0.location): \($0.message.text)" } == [
                ".env:1:8: unexpected 'def' after the value's closing ': quote the whole value",
                ".env:3:6: unexpected '\"y\"' after the value's closing \": quote the whole value",
                ".env:5:9: unexpected 'tail' after the value's closing \": quote the whole value",
            ])
    }

    /// A NUL ends a C string: the task's environment got `B=` with the rest of the value gone,
    /// and validation passed. It is refused at its line, as a `"\0"` in the workflow is.
    @Test func aNulInAValueIsRefusedAtItsLine() {
        let (entries, problems) = Dotenv.parse("A=1\nB=x\u{0}y\nC='q\u{0}'\nD=2\n", file: ".env")
        #expect(entries.map(\.name) == ["A", "D"])
        #expect(
            problems.map { "\($0.location): \($0.message.text)" } == [
                ".env:2:1: the value of 'B' holds a NUL character (\\0): a variable's value would end there",
                ".env:3:1: the value of 'C' holds a NUL character (\\0): a variable's value would end there",
            ])
    }

    /// A `.env` saved on Windows ends its lines with CRLF. Swift reads "\r\n" as one Character, so
    /// splitting at "\n" split nothing: the first value swallowed every later line, and the other
    /// keys were never set. Compose reads each line, its CR dropped.
    @Test func crlfLineEndsAreLineEnds() {
        let (entries, problems) = Dotenv.parse("A=one\r\nB=\"two\"\r\n# note\r\nC='x\r\ny'\r\nD=4\r\n", file: ".env")
        #expect(problems.isEmpty, "\(problems)")
        #expect(entries.map(\.name) == ["A", "B", "C", "D"])
        #expect(entries.map(\.value) == ["one", "two", "x\ny", "4"])
    }

    /// `URL=https://${HOST}/x` gave `URL` the literal text; compose expands unquoted and
    /// double-quoted values, from the keys set before (this file's, earlier files') and then the
    /// process environment, and leaves single-quoted ones as written.
    @Test func valuesExpandAsComposeExpandsThem() {
        let text = """
            HOST=example.com
            URL=https://${HOST}/x
            BARE=$HOST:$PORT.
            QUOTED="${HOST} \\$HOST $$HOST"
            SINGLE='${HOST} $HOST'
            HOME=/from/file
            MINE=${HOME}
            EMPTY=
            A=${UNSET:-dflt} ${EMPTY:-dflt} ${EMPTY-dflt} ${UNSET-dflt}
            B=[${HOST:+alt}] [${EMPTY:+alt}] [${EMPTY+alt}] [${UNSET+alt}]
            C=${UNSET:-${HOST}/x} ${HOST?never}
            D=price: 5$ ${PATHY} $1
            """
        let (entries, problems) = Dotenv.parse(text, file: ".env", environment: ["PORT": "8080", "HOME": "/home/u", "PATHY": "/p"])
        #expect(problems.isEmpty, "\(problems)")
        #expect(
            entries.map { "\($0.name)=\($0.value)" } == [
                "HOST=example.com", "URL=https://example.com/x", "BARE=example.com:8080.", "QUOTED=example.com $HOST $HOST",
                "SINGLE=${HOST} $HOST", "HOME=/from/file", "MINE=/from/file", "EMPTY=", "A=dflt dflt  dflt",
                "B=[alt] [] [alt] []", "C=example.com/x example.com", "D=price: 5$ /p $1",
            ])
    }

    /// Later files see the keys of earlier ones; what was looked up in the process environment
    /// (set or not) is kept for the plan cache, and a key that took a secret's value is noted.
    @Test func laterFilesSeeEarlierKeysAndTheLookupsAreNoted() {
        var scope = DotenvScope(environment: ["API_TOKEN": "t0k", "REGION": "eu"])
        _ = Dotenv.parse("BASE=https://${REGION}.example\nAUTH=${API_TOKEN}\n", file: ".env", scope: &scope)
        let (entries, problems) = Dotenv.parse("URL=${BASE}/v1?${AUTH}\nPLAIN=${MISSING-x}\n", file: ".env.local", scope: &scope)
        #expect(problems.isEmpty, "\(problems)")
        #expect(entries.map(\.value) == ["https://eu.example/v1?t0k", "x"])
        #expect(scope.environmentNames == ["REGION", "API_TOKEN", "MISSING"])
        #expect(scope.secretNames == ["AUTH", "URL"])
    }

    /// `${NAME:?message}` stops with the message at the `$`, as compose stops; so do a `${`
    /// never closed and a substitution that is not one of compose's forms.
    @Test func aRequiredVariableAndABadSubstitutionAreErrorsAtTheDollar() {
        let text = "EMPTY=\nA=x ${UNSET:?set UNSET first}\nB=\"one\n  two ${EMPTY:?}\"\nC=${EMPTY?fine}ok\nD=${OPEN\nE=${A B}\n"
        let (entries, problems) = Dotenv.parse(text, file: "conf/.env")
        #expect(entries.map(\.name) == ["EMPTY", "C"])
        #expect(
            problems.map { "\($0.location): \($0.message.text)" } == [
                "conf/.env:2:5: required variable UNSET is not set: set UNSET first",
                "conf/.env:4:7: required variable EMPTY is empty",
                "conf/.env:6:3: '${' is never closed by '}'",
                "conf/.env:7:3: bad substitution '${A B}': expected ${NAME}, ${NAME:-default}, ${NAME-default}, ${NAME:+alt}, ${NAME+alt}, ${NAME:?message} or ${NAME?message}",
            ])
    }
}
