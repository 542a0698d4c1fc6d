import FlowLoading
import FlowModel
import FlowPlanning
import Testing

/// `${NAME}` and `${NAME:-default}` expansion.
@Suite struct InterpolationTests {
    let values = ["VERSION": "1.0", "EMPTY": "", "HOST": "example.com"]

    func expand(_ text: String) -> Interpolation.Expansion {
        let values = values
        return Interpolation { values[$0] }.expand(text)
    }

    @Test func aDefaultIsUsedWhenTheNameIsUndefinedOrEmpty() {
        #expect(expand("${MISSING:-fallback}/x") == .expanded("fallback/x"))
        #expect(expand("${EMPTY:-fallback}") == .expanded("fallback"))
        #expect(expand("${MISSING:-}") == .expanded(""))
    }

    @Test func theValueIsUsedWhenTheNameIsSet() {
        #expect(expand("app-${VERSION:-9.9}.tar.gz") == .expanded("app-1.0.tar.gz"))
    }

    /// Unlike sh, `${NAME-WORD}` is no default: `${app-name}` is a typo to report, not "name".
    @Test func withoutTheColonADashIsMalformed() {
        #expect(expand("${MISSING-fallback}") == .failed([.malformed]))
        #expect(expand("${app-name}.tar.gz") == .failed([.malformed]))
    }

    @Test func aDefaultMayReferToOtherVariables() {
        #expect(expand("${URL:-https://${HOST}/app-${VERSION}.tar.gz}") == .expanded("https://example.com/app-1.0.tar.gz"))
        #expect(expand("${A:-${B:-${VERSION}}}!") == .expanded("1.0!"))
        #expect(expand("${A:-$${literal}}") == .expanded("${literal}"))
    }

    @Test func anUndefinedNameInAnUnusedDefaultIsFine() {
        #expect(expand("${VERSION:-${NOWHERE}}") == .expanded("1.0"))
        #expect(expand("${MISSING:-${NOWHERE}}") == .failed([.undefined("NOWHERE")]))
    }

    @Test func anUnclosedOrBadReferenceIsMalformed() {
        #expect(expand("${MISSING:-fallback") == .failed([.malformed]))
        #expect(expand("${MISSING:-${VERSION}") == .failed([.malformed]))
        #expect(expand("${1BAD:-x}") == .failed([.malformed]))
        #expect(expand("${VERSION:x}") == .failed([.malformed]))
        #expect(expand("${VERSION:-${bad name}}") == .failed([.malformed]))
    }

    @Test func anUnclosedDefaultIsReportedAtItsField() throws {
        let text = """
            version: 1
            tasks:
              get:
                download:
                  url: ${RELEASE_URL:-file:///tmp/app.tar.gz
                  to: app.tar.gz
            """
        let loaded = WorkflowLoader.decode(Array(text.utf8), file: "w.yaml", directory: "/work", defaultName: "w")
        let result = try Planner.plan(try #require(loaded.workflow), options: PlanningOptions())
        #expect(
            result.diagnostics.map { "\($0.location.line):\($0.location.column): \($0.message.text)" } == [
                "5:12: malformed variable reference in 'url' of task 'get': write ${NAME}, or $${ for a literal ${"
            ])
    }
}
