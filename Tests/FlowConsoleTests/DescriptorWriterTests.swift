import FlowConsole
import FlowEvents
import FlowModel
import Foundation
import Glibc
import Testing

/// A failed write is kept, told once, and ends the writing; every sink tells its own.
@Suite struct DescriptorWriterTests {
    @Test func aWriterKeepsItsFirstFailureTellsItOnceAndWritesNothingAfterIt() throws {
        let full = open("/dev/full", O_WRONLY | O_CLOEXEC)
        try #require(full >= 0)
        defer { close(full) }
        let told = Counter()
        let writer = DescriptorWriter(descriptor: full, name: "the log", onFailure: { _ in told.add() })
        #expect(writer.failure == nil)
        for _ in 0..<3 { writer.write("a line\n") }
        #expect(writer.failure == WriteFailure(output: "the log", code: ENOSPC))
        #expect(writer.failure?.description == "cannot write the log: No space left on device")
        #expect(told.value == 1)
    }

    @Test func standardOutputIsNamedSo() {
        #expect(DescriptorWriter(descriptor: STDOUT_FILENO).name == "standard output")
    }

    /// Each sink that writes, writing to the path it is given.
    static let sinks: [(String, @Sendable (String) throws -> any EventSink)] = [
        ("jsonl", { JSONLinesSink(writer: try DescriptorWriter(creatingFileAt: $0)) }),
        ("plain", { PlainLog(writer: try DescriptorWriter(creatingFileAt: $0)) }),
        (
            "live",
            {
                LiveConsole(
                    writer: try DescriptorWriter(creatingFileAt: $0), style: Style(enabled: false),
                    size: { (80, 24) }, refreshInterval: .never)
            }
        ),
        ("junit", { try JUnitReport(path: $0) }),
    ]

    @Test(arguments: sinks.map(\.0))
    func everySinkTellsItsFailedWrite(_ name: String) throws {
        // /dev/full through a link of the test's own: a report renamed over the path replaces
        // the link, never the machine's /dev/full.
        let file = try OutputFile()
        defer { file.remove() }
        try FileManager.default.createSymbolicLink(atPath: file.path, withDestinationPath: "/dev/full")
        let sink = try #require(Self.sinks.first { $0.0 == name }).1(file.path)
        sampleRun().play(into: sink)
        #expect(sink.writeFailure == WriteFailure(output: file.path, code: ENOSPC))
    }
}

private final class Counter: @unchecked Sendable {  // `lock` guards `count`.
    private let lock = NSLock()
    private var count = 0

    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
