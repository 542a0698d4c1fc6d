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

    /// The suggestion is flowrun's own (`Spelling`, as for keys and task ids): close words only,
    /// where the parser's own would offer `--env` for `--foo`; also for an option's choices.
    @Test func theParsersErrorsUseFlowrunsOwnSuggestions() async throws {
        let root = FlowrunBinary.repositoryRoot
        let typo = try await FlowrunBinary.run(["--dry-rn", "workflows/upgrade.yaml"], in: root)
        #expect(typo.status == 2)
        #expect(typo.stderr.hasPrefix("flowrun: error: unknown option '--dry-rn'; did you mean '--dry-run'?\n"), "\(typo.stderr)")
        let far = try await FlowrunBinary.run(["run", "--foo", "workflows/upgrade.yaml"], in: root)
        #expect(far.status == 2)
        #expect(far.stderr.hasPrefix("flowrun: error: unknown option '--foo'\n"), "\(far.stderr)")
        let list = try await FlowrunBinary.run(["list", "--jsn"], in: root)
        #expect(list.stderr.hasPrefix("flowrun: error: unknown option '--jsn'; did you mean '--json'?\n"), "\(list.stderr)")
        let choice = try await FlowrunBinary.run(["run", "--events", "plian", "workflows/upgrade.yaml"], in: root)
        #expect(choice.status == 2)
        #expect(
            choice.stderr.hasPrefix(
                "flowrun: error: the value 'plian' is invalid for '--events <MODE>'. Please provide one of 'human', 'plain' or 'jsonl'; did you mean 'plain'?\n"
            ), "\(choice.stderr)")
    }

    @Test(arguments: ["nan", "inf", "-1", "1e300"])
    func aGraceThatIsNoNumberOfSecondsIsRefused(grace: String) async throws {
        let result = try await FlowrunBinary.run(["run", "--dry-run", "--grace=\(grace)", "workflows/upgrade.yaml"], in: FlowrunBinary.repositoryRoot)
        #expect(result.status == 2)
        #expect(result.stderr.contains("--grace"))
        #expect(result.stdout == "")
    }
}
