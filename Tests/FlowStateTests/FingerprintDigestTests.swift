import FlowModel
import Testing

@testable import FlowState

/// The fingerprint's digests are fed to the hasher piece by piece rather than built as text
/// first; each must stay the SHA-256 of the text an earlier flowrun built, or every recorded
/// fingerprint and `--resume` key would stop matching.
@Suite struct FingerprintDigestTests {
    /// The reference: the whole text's SHA-256 in one go (its hex checked against a known
    /// vector below).
    static func sha256(_ text: String) -> String { TaskFingerprint.hash(text) }

    static let fingerprint = TaskFingerprint(
        definition: sha256("definition"), environment: sha256("A=1"), inputs: sha256("inputs"), needs: sha256("needs"))

    @Test func hexIsLowercaseAndWhole() {
        #expect(TaskFingerprint.hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(TaskFingerprint.hash("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func theValueIsTheDigestOfThePartsJoined() {
        let parts = Self.fingerprint
        #expect(parts.value == Self.sha256(parts.definition + parts.environment + parts.inputs + parts.needs))
    }

    @Test func theNeedsDigestIsTheDigestOfTheirValuesOneALineSorted() {
        let values: [String?] = [Self.sha256("a"), nil, Self.sha256("c")]
        // sha256("c") is 2e7d..., sha256("a") ca97...: the order `needs:` lists them in is no part of it.
        #expect(TaskFingerprint.needsDigest(values) == Self.sha256("\(values[2]!)\n\(values[0]!)\nnone"))
        #expect(TaskFingerprint.needsDigest(values.reversed()) == TaskFingerprint.needsDigest(values))
        #expect(TaskFingerprint.needsDigest([]) == Self.sha256(""))
        #expect(TaskFingerprint.needsDigest([nil]) == Self.sha256("none"))
    }

    @Test func theResumeKeyIsTheDigestOfTheValueAndTheOutputs() {
        let record = TaskRecord(fingerprint: Self.fingerprint, outputs: Self.sha256("outputs"))
        #expect(record.resumeKey == Self.sha256(Self.fingerprint.value + "\0" + Self.sha256("outputs")))
    }

    @Test func theDigestOfPatternsIsTheDigestOfItsLines() {
        let disk = InMemoryFileSystem()
        disk.write("/in/a.txt", "alpha")
        disk.write("/in/b.txt", "beta")
        var digests = FileDigests(known: [:], fileSystem: disk)
        let (digest, missing) = digests.digest(ofPatterns: ["/in/a.txt", "/in/*", "/gone"])
        let (alpha, beta) = (InMemoryFileSystem.digest("alpha"), InMemoryFileSystem.digest("beta"))
        let text =
            "pattern\0/in/a.txt\n/in/a.txt\0\(alpha)\n"
            + "pattern\0/in/*\n/in/a.txt\0\(alpha)\n/in/b.txt\0\(beta)\n" + "pattern\0/gone\n"
        #expect(digest == Self.sha256(text))
        #expect(missing == ["/gone"])
    }
}

extension FingerprintDigestTests {
    /// A task's env digest is fed piece by piece, and a task without env takes the digest of no
    /// text: each the SHA-256 of the entries joined as an earlier flowrun built them.
    @Test func theEnvironmentDigestIsTheDigestOfItsEntriesJoined() {
        #expect(TaskFingerprint.environmentDigest([]) == Self.sha256(""))
        let one = [EnvironmentEntry(name: "A", value: "1")]
        #expect(TaskFingerprint.environmentDigest(one) == Self.sha256("A=1"))
        let three = [
            EnvironmentEntry(name: "A", value: "1"), EnvironmentEntry(name: "EMPTY", value: ""),
            EnvironmentEntry(name: "B", value: "x=y \u{e9}"),
        ]
        #expect(TaskFingerprint.environmentDigest(three) == Self.sha256("A=1\0EMPTY=\0B=x=y \u{e9}"))
    }
}
