import FlowModel
import Foundation
import Glibc
import Testing

@testable import FlowReport

/// `report -o missing/\u{301}r.html`: the folder is `missing/`, refused before the run as
/// `curl -o` refuses it. Split by Characters (swift-corelibs' NSString), `/` and the combining
/// mark were one, the path had no folder, and the current one was checked instead.
@Suite struct ReportDestinationBytesTests {
    @Test func aMissingFolderBeforeANameStartingWithACombiningMarkIsRefused() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("report-bytes-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        #expect(throws: WriteFailure(output: base + "/missing/\u{301}r.html", code: ENOENT)) {
            try ReportFile.checkDestination(base + "/missing/\u{301}r.html")
        }
        try ReportFile.checkDestination(base + "/\u{301}r.html")
    }
}
