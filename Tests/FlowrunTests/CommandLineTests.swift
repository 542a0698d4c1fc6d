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
        #expect(result.stderr.contains("Unknown option '--bogus'"))
    }

    @Test(arguments: ["nan", "inf", "-1", "1e300"])
    func aGraceThatIsNoNumberOfSecondsIsRefused(grace: String) async throws {
        let result = try await FlowrunBinary.run(["run", "--dry-run", "--grace=\(grace)", "workflows/upgrade.yaml"], in: FlowrunBinary.repositoryRoot)
        #expect(result.status == 2)
        #expect(result.stderr.contains("--grace"))
        #expect(result.stdout == "")
    }
}
