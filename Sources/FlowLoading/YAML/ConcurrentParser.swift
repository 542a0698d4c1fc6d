import CYAML
import FlowModel
import Foundation

/// Runs libyaml's parser on a thread of its own and hands its events over in batches, so that
/// parsing a large file (two fifths of loading one, and libyaml's to do) overlaps with building
/// its tree on the other core.
///
/// The parser stays at most `maxQueuedBatches` ahead, so memory stays flat however large the
/// file. A syntax error is raised only after every event before it, so problems come out in the
/// order of the file, as when the two steps take turns on one thread.
///
/// - Warning: `batches`, `parsingEnded`, `syntaxError` and `stopping` are guarded by
///   `condition`. The parser belongs to the parsing thread until `finish()` returns.
final class ConcurrentParser: @unchecked Sendable {
    static let batchSize = 2048
    static let maxQueuedBatches = 8

    private let condition = NSCondition()
    private var batches: [[yaml_event_t]] = []
    private var parsingEnded = false
    private var syntaxError: Diagnostic?
    private var stopping = false

    /// Starts parsing `bytes`, which `parser` reads; both must outlive `finish()`.
    init(parser: UnsafeMutablePointer<yaml_parser_t>, bytes: UnsafeBufferPointer<UInt8>, file: String) {
        let input = Input(parser: parser, bytes: bytes)
        Thread { [self] in parse(input, file: file) }.start()
    }

    /// The parser and its text, handed to the parsing thread, which alone uses them until it ends.
    private struct Input: @unchecked Sendable {
        var parser: UnsafeMutablePointer<yaml_parser_t>
        var bytes: UnsafeBufferPointer<UInt8>
    }

    /// The next events in order, to be deleted by the caller; nil after the last. Throws the
    /// syntax error once every event before it has been handed over.
    func next() throws(YAMLError) -> [yaml_event_t]? {
        condition.lock()
        defer { condition.unlock() }
        while batches.isEmpty && !parsingEnded { condition.wait() }
        guard batches.isEmpty else {
            condition.broadcast()  // the parser may be waiting for room
            return batches.removeFirst()
        }
        if let syntaxError { throw YAMLError(syntaxError) }
        return nil
    }

    /// Stops the parser if it is still going, waits for its thread to end and deletes the
    /// events nobody took. Call it once, when done with `next()`, error or not.
    func finish() {
        condition.lock()
        defer { condition.unlock() }
        stopping = true
        condition.broadcast()
        while !parsingEnded { condition.wait() }
        for batch in batches { Self.delete(batch) }
        batches.removeAll()
    }

    private func parse(_ input: Input, file: String) {
        var batch: [yaml_event_t] = []
        batch.reserveCapacity(Self.batchSize)
        var syntaxError: Diagnostic?
        while true {
            var event = yaml_event_t()
            guard yaml_parser_parse(input.parser, &event) == 1 else {
                syntaxError = YAMLLoader.syntaxDiagnostic(input.parser.pointee, bytes: input.bytes, file: file)
                break
            }
            batch.append(event)
            let isLast = event.type == YAML_STREAM_END_EVENT
            guard isLast || batch.count == Self.batchSize else { continue }
            guard handOver(batch) else { return }
            batch.removeAll(keepingCapacity: true)
            if isLast { break }
        }
        condition.lock()
        if !batch.isEmpty { batches.append(batch) }  // the events before a syntax error
        self.syntaxError = syntaxError
        parsingEnded = true
        condition.broadcast()
        condition.unlock()
    }

    /// Queues `batch`, waiting while the builder is far behind; false, with the batch deleted
    /// and the parsing ended, once `finish()` has been called.
    private func handOver(_ batch: [yaml_event_t]) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while batches.count >= Self.maxQueuedBatches && !stopping { condition.wait() }
        guard !stopping else {
            Self.delete(batch)
            parsingEnded = true
            condition.broadcast()
            return false
        }
        batches.append(batch)
        condition.broadcast()
        return true
    }

    static func delete(_ batch: [yaml_event_t]) {
        var batch = batch
        for index in batch.indices { yaml_event_delete(&batch[index]) }
    }
}
