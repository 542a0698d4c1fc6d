import FlowEvents
import FlowModel
import Foundation

/// Writes every event as one JSON object on one line: `--events jsonl` and `--events-file PATH`.
///
/// Each line is `EventCodec`'s: the format that run records share.
///
/// Whole lines go out with one `write(2)` (all the events the bus hands over at once), so lines
/// never interleave with other writers; nothing is held back, so a reader tailing the stream
/// sees each event as it happens.
package final class JSONLinesSink: EventSink {
    private let writer: DescriptorWriter
    /// The line being encoded, kept between events for its capacity, and the last time's text.
    private let line = LockedState<(bytes: [UInt8], times: EventTime.Memo)>(([], EventTime.Memo()))

    package init(writer: DescriptorWriter) {
        self.writer = writer
    }

    /// Writes to `descriptor` (such as `STDOUT_FILENO`), which the caller keeps open.
    package convenience init(descriptor: Int32) {
        self.init(writer: DescriptorWriter(descriptor: descriptor))
    }

    /// Writes to a file created (or truncated) at `path`, closed by `finish()`: `--events-file`.
    package convenience init(creatingFileAt path: String) throws(DescriptorWriter.OpenError) {
        self.init(writer: try DescriptorWriter(creatingFileAt: path))
    }

    package func receive(_ event: RunEvent) {
        receive([event])
    }

    /// Writes the lines of `events` with one `write(2)`.
    package func receive(_ events: [RunEvent]) {
        // After a failed write nothing more is written: nor need it be encoded.
        guard writer.failure == nil else { return }
        line.withLock { line in
            var lines: [UInt8] = []
            for event in events {
                EventCodec.encode(event, into: &line.bytes, times: &line.times)
                lines += line.bytes
            }
            if !lines.isEmpty { writer.write(lines) }
        }
    }

    package func finish() {
        writer.close()
    }

    package var writeFailure: WriteFailure? { writer.failure }
}
