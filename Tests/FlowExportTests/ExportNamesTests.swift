import FlowExport
import Testing

/// Task ids mapped to names each engine accepts: valid, unique, deterministic.
@Suite struct ExportNamesTests {
    static let ids = ["1st.setup", "test.unit", "build_linux", "test_unit", "-dash", "Build", "build", "flowrun-task", String(repeating: "a.", count: 32)]

    @Test func githubJobIDsStartWithALetterOrUnderscore() {
        let names = ExportNames.names(for: Self.ids, engine: .github)
        #expect(
            names == [
                "_1st_setup", "test_unit-2", "build_linux", "test_unit", "_-dash", "Build", "build-2", "flowrun-task", String(repeating: "a_", count: 31) + "a",
            ])
        for name in names { #expect(ExportNames.isValid(name, .github), "\(name)") }
    }

    @Test func argoNamesHoldLettersDigitsAndDashesAndStartWithALetter() {
        let names = ExportNames.names(for: Self.ids, engine: .argo, reserved: ["flowrun-task"])
        #expect(
            names == [
                "t-1st-setup", "test-unit", "build-linux", "test-unit-2", "t-dash", "build-2", "build", "flowrun-task-2",
                String(repeating: "a-", count: 31) + "a",
            ])
        for name in names { #expect(ExportNames.isValid(name, .argo), "\(name)") }
    }

    /// Argo (3.4 and later) names a task's pod `WORKFLOW-TEMPLATE-HASH`, and Kubernetes takes
    /// only a lowercase pod name: a template `Build` was valid to Argo's checks and then failed
    /// at run time ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric
    /// characters", argoproj/argo-workflows#9670). Argo names are lowercase.
    @Test func argoNamesAreLowercaseAsPodNamesMustBe() {
        let names = ExportNames.names(for: ["Build", "Deploy.Prod", "ALL_CAPS", "lint"], engine: .argo)
        #expect(names == ["build", "deploy-prod", "all-caps", "lint"])
        #expect(!ExportNames.isValid("Build", .argo))
    }

    /// Argo's `depends` is an expr expression: its words cannot name a task there.
    @Test func argoNamesAreNeverAWordOfArgosExpressionLanguage() {
        let ids = ["not", "in", "and", "or", "true", "false", "nil", "if", "else", "let", "matches", "contains", "notify", "t-not"]
        let names = ExportNames.names(for: ids, engine: .argo)
        #expect(
            names == [
                "t-not-2", "t-in", "t-and", "t-or", "t-true", "t-false", "t-nil", "t-if", "t-else", "t-let", "t-matches", "t-contains", "notify", "t-not",
            ])
        // GitHub reads `needs.true.result` as a property after a dot: no rename there.
        #expect(ExportNames.names(for: ["not", "true"], engine: .github) == ["not", "true"])
    }

    @Test func theSameIdsGiveTheSameNames() {
        #expect(ExportNames.names(for: Self.ids, engine: .argo) == ExportNames.names(for: Self.ids, engine: .argo))
    }

    @Test func manyCollisionsStayUniqueAndShort() {
        let ids = (0..<100).map { "x" + String(repeating: ".", count: $0 % 3 + 1) + String(repeating: "y", count: 59) }
        let names = ExportNames.names(for: ids, engine: .argo)
        #expect(Set(names.map { $0.lowercased() }).count == ids.count)
        #expect(names.allSatisfy { $0.utf8.count <= 63 && ExportNames.isValid($0, .argo) })
    }
}
