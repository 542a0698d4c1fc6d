import Foundation
import Testing

@Suite struct CommandLineTests {
    @Test func validFileIsReportedOK() async throws {
        let result = try await FlowrunBinary.run(["validate", "workflows/upgrade.yaml"], in: FlowrunBinary.repositoryRoot)
        #expect(result.stderr == "")
        #expect(result.stdout.hasPrefix("workflows/upgrade.yaml: ok ("))
        #expect(result.status == 0)
    }

    @Test func unknownOptionIsAUsageErrorWithStatus2() async throws {
        let result = try await FlowrunBinary.run(["validate", "--bogus"])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("flowrun: error: unknown option '--bogus'\n"), "\(result.stderr)")
    }

    /// The parser's errors read as flowrun's own: `flowrun: error: ...; did you mean ...?`.
    @Test func aMisspelledOptionIsReportedInFlowrunsFormWithASuggestion() async throws {
        let result = try await FlowrunBinary.run(["run", "--evnets", "plain", "workflows/upgrade.yaml"], in: FlowrunBinary.repositoryRoot)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("flowrun: error: unknown option '--evnets'; did you mean '--events'?\n"), "\(result.stderr)")
        #expect(!result.stderr.contains("Error: "), "\(result.stderr)")
    }

    @Test(arguments: ["nan", "inf", "-1", "1e300"])
    func aGraceThatIsNoNumberOfSecondsIsRefused(grace: String) async throws {
        let result = try await FlowrunBinary.run(["run", "--dry-run", "--grace=\(grace)", "workflows/upgrade.yaml"], in: FlowrunBinary.repositoryRoot)
        #expect(result.status == 2)
        #expect(result.stderr.contains("--grace"))
        #expect(result.stdout == "")
    }
}
