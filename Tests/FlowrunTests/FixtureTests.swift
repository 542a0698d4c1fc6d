import Foundation
import Testing

/// The diagnostics corpus: every invalid file beside the exact output expected of `flowrun
/// validate`, every valid file beside the plan `--dry-run` prints, compared whole.
@Suite struct FixtureTests {
    static let invalid = fixtures(in: "invalid", withSuffix: ".expected")
    static let valid = fixtures(in: "valid", withSuffix: ".plan")
    static let hostile = fixtures(in: "hostile", withSuffix: nil)

    /// `folder/name.yaml` for every `name.yaml` below `folder` (that has a `name<suffix>` beside it).
    static func fixtures(in folder: String, withSuffix suffix: String?) -> [String] {
        let root = FlowrunBinary.fixtures.appendingPathComponent(folder)
        let walker = FileManager.default.enumerator(atPath: root.path)
        var names: [String] = []
        while let path = walker?.nextObject() as? String {
            guard path.hasSuffix(".yaml") else { continue }
            if let suffix {
                let expected = root.appendingPathComponent(String(path.dropLast(5)) + suffix)
                guard FileManager.default.fileExists(atPath: expected.path) else { continue }
            }
            names.append(folder + "/" + path)
        }
        return names.sorted()
    }

    @Test func corpusCoversTheSpec() {
        #expect(Self.invalid.count >= 60)
        #expect(Self.valid.count >= 8)
    }

    @Test(arguments: invalid)
    func invalidFileGivesExactlyTheExpectedDiagnostics(_ fixture: String) async throws {
        let file = FlowrunBinary.fixtures.appendingPathComponent(fixture)
        let expected = try String(contentsOf: file.deletingPathExtension().appendingPathExtension("expected"), encoding: .utf8)
        let result = try await FlowrunBinary.run(["validate", file.lastPathComponent], in: file.deletingLastPathComponent())
        #expect(result.stderr == expected)
        #expect(result.stdout == "")
        #expect(result.status == 2)
    }

    @Test(arguments: valid)
    func validFileHasTheExpectedPlan(_ fixture: String) async throws {
        let file = FlowrunBinary.fixtures.appendingPathComponent(fixture)
        let folder = file.deletingLastPathComponent()
        let expected = try String(contentsOf: file.deletingPathExtension().appendingPathExtension("plan"), encoding: .utf8)
            .replacingOccurrences(of: "$FIXTURES", with: folder.standardizedFileURL.path)
        let argsFile = file.deletingPathExtension().appendingPathExtension("args")
        let extra = (try? String(contentsOf: argsFile, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
        let result = try await FlowrunBinary.run(["run", "--dry-run", file.lastPathComponent] + extra, in: folder)
        #expect(result.stderr == "")
        #expect(result.stdout == expected)
        #expect(result.status == 0)

        let validate = try await FlowrunBinary.run(["validate", file.lastPathComponent], in: folder)
        #expect(validate.status == 0)
        #expect(validate.stdout.hasPrefix("\(file.lastPathComponent): ok ("))
    }

    /// Hostile input gets one clear diagnostic that names the file and exit status 2: never a
    /// crash, a hang or a stack trace.
    @Test(arguments: hostile)
    func hostileFileIsRejectedCleanly(_ fixture: String) async throws {
        let file = FlowrunBinary.fixtures.appendingPathComponent(fixture)
        let name = file.lastPathComponent
        let result = try await FlowrunBinary.run(["validate", name], in: file.deletingLastPathComponent())
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("\(name):"))
        #expect(result.stderr.contains(": error: "))
        #expect(!result.stderr.contains("Fatal error"))
    }

    @Test func aFiftyMegabyteFileIsRefusedWithoutReadingIt() async throws {
        let folder = try TemporaryFolder()
        let file = folder.url.appendingPathComponent("huge.yaml")
        var line = Data("version: 1\ntasks:\n".utf8)
        let task = Data("  t: {shell: [\"true\"]}  # \(String(repeating: "x", count: 200))\n".utf8)
        line.reserveCapacity(50 << 20)
        while line.count < 50 << 20 { line.append(task) }
        try line.write(to: file)
        let result = try await FlowrunBinary.run(["validate", "huge.yaml"], in: folder.url)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("huge.yaml: error: the file is "))
    }

    @Test func tenThousandDeepNestingFailsWithoutAStackOverflow() async throws {
        let folder = try TemporaryFolder()
        let text = "version: 1\ntasks: " + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "\n"
        try Data(text.utf8).write(to: folder.url.appendingPathComponent("deep.yaml"))
        let result = try await FlowrunBinary.run(["validate", "deep.yaml"], in: folder.url)
        #expect(result.status == 2)
        #expect(result.stderr.contains("deep.yaml:2:"))
        #expect(result.stderr.contains("nesting is deeper than"))
    }

    @Test func everyExampleWorkflowIsValid() async throws {
        let folder = FlowrunBinary.repositoryRoot.appendingPathComponent("workflows")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".yaml") }.sorted()
        #expect(files.contains("upgrade.yaml") && files.contains("images.yaml") && files.contains("ci.yaml"))
        let result = try await FlowrunBinary.run(["validate"] + files, in: folder)
        #expect(result.stderr == "")
        #expect(result.status == 0)
    }
}

/// A folder under the temporary directory, removed when the value goes away.
final class TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("flowrun-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}
