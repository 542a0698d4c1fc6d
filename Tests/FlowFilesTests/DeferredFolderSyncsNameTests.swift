import FlowFiles
import Testing

/// `DeferredFolderSyncs` flushes every folder a file was renamed into, by its bytes: "café" with
/// a precomposed é (NFC) and with e and a combining accent (NFD) are two folders to Linux,
/// though Swift's `==` calls the two strings equal.
@Suite struct DeferredFolderSyncsNameTests {
    @Test func foldersThatDifferOnlyInUnicodeNormalizationAreEachNoted() {
        let syncs = DeferredFolderSyncs()
        syncs.add("/tmp/out/caf\u{E9}")
        syncs.add("/tmp/out/cafe\u{301}")
        syncs.add("/tmp/out/caf\u{E9}")
        #expect(syncs.count == 2, "one folder would be left without its fsync")
    }
}
