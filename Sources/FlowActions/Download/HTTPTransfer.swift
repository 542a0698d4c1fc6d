import AsyncHTTPClient
import Dispatch
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// One HTTP request's response body streamed into a `PartialFile`.
///
/// Back-pressure: past `writeBehindLimit` bytes not yet on disk or not yet hashed, the future a
/// body part returns completes only once both have caught up, so memory stays bounded whatever
/// the file's size. The network thread copies the parts into whole blocks (`StagedBlock`);
/// writes happen on the file's queue and hashing on its hashing queue, a block at a time, each
/// in the order the bytes arrived. A body with a SHA-256 to compute has only that on the hashing
/// queue; its XXH3-128 is fed by the network thread as the bytes reach the block
/// (`Staging.hashesContent`).
final class HTTPTransfer: HTTPClientResponseDelegate {
    typealias Response = Void

    private let file: PartialFile
    private let url: String
    private let resuming: Bool
    /// The file as the request was made (on its queue, idle until this response's body): what
    /// a 206 is checked against on the network thread.
    private let kept: (size: Int64, validator: String?, expectedSize: Int64?)
    private let progress: @Sendable (Int64, Int64?) -> Void
    /// The body's full length when the server said it, and the file's size when the body began
    /// (the bytes kept from an earlier attempt): what progress counts from.
    private let expectedLength = NIOLockedValueBox<(total: Int64?, start: Int64)>((nil, 0))

    init(
        file: PartialFile, url: String, resuming: Bool,
        progress: @escaping @Sendable (Int64, Int64?) -> Void
    ) {
        self.file = file
        self.url = url
        self.resuming = resuming
        self.progress = progress
        kept = (file.size, file.validator, file.expectedSize)
    }

    /// The request: a GET with the task's headers, and a Range from the kept bytes when resuming.
    static func request(url: String, headers: [(String, String)], resumingFrom file: PartialFile?) throws -> HTTPClient.Request {
        // async-http-client refuses these too, but its error quotes the value, which is never printed.
        if let (name, _) = headers.first(where: { $0.1.utf8.contains { ($0 < 0x20 && $0 != UInt8(ascii: "\t")) || $0 == 0x7F } }) {
            throw ActionFailure(
                "header '\(name)' holds a line break or another control character, which HTTP does not allow (its value is not shown)", retryable: false)
        }
        var fields = HTTPHeaders(headers)
        if let file, file.size > 0 {
            fields.replaceOrAdd(name: "Range", value: "bytes=\(file.size)-")
            if let validator = file.validator { fields.replaceOrAdd(name: "If-Range", value: validator) }
        }
        return try HTTPClient.Request(url: url, method: .GET, headers: fields)
    }

    /// A 3xx with a Location: the attempt's next request goes there.
    struct Redirect: Error {
        var location: String
    }

    /// A 206 that does not continue the kept bytes (`ResumedRange`): the file is emptied, and
    /// the attempt asks for the whole file instead.
    struct RangeRefused: Error {
        var problem: String
    }

    /// Whether the response's head came: until then, no byte of the response has been seen.
    private let headSeen = NIOLockedValueBox(false)
    var receivedHead: Bool { headSeen.withLockedValue { $0 } }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        received(head, on: task.eventLoop) ?? task.eventLoop.makeSucceededVoidFuture()
    }

    /// The response's head, from async-http-client, a `ForwardedRequest` or a `PlainHTTPReader`:
    /// nil when the body may come at once, else a future that says when (or fails the request).
    /// Nil rather than a future made succeeded: the plain reader would wait for that one
    /// through the event loop's thread, a round trip of two thread wake-ups.
    func received(_ head: HTTPResponseHead, on eventLoop: any EventLoop) -> EventLoopFuture<Void>? {
        headSeen.withLockedValue { $0 = true }
        // The statuses `curl -L` follows: a 300's Location is the server's preferred choice.
        if [300, 301, 302, 303, 307, 308].contains(head.status.code), let location = head.headers.first(name: "Location") {
            return eventLoop.makeFailedFuture(Redirect(location: location))
        }
        let file = file, url = url, resuming = resuming, progress = progress
        let contentLength = head.headers.first(name: "Content-Length").flatMap { Int64($0) }
        let validator =
            head.headers.first(name: "ETag").flatMap { $0.hasPrefix("W/") ? nil : $0 }
            ?? head.headers.first(name: "Last-Modified")
        let failure = Self.failure(of: head, url: url)
        let inline = Self.hashesInline(bodyLength: contentLength)
        staging.withLockedValue { staging in
            staging.hashesInline = inline
            staging.hashesContent = !inline && file.withSHA256
        }
        // A 206 to a plain GET is the body only when its range is the whole file, and its body
        // that long: the range's length is then the file's, so a shorter body (its
        // Content-Length, or a chunked body's end) is not taken for the file.
        let range = head.status == .partialContent ? ContentRange(head.headers.first(name: "Content-Range")) : nil
        let wholeFile = head.status != .partialContent || (range?.isWholeFile == true && (contentLength ?? range?.total) == range?.total)
        if !resuming, wholeFile {
            // A whole body into an empty file: nothing on the file's queue can fail, so the
            // head's bookkeeping goes there ahead of the body and the network thread reads on
            // at once, instead of waiting for that queue to wake up (two thread hand-offs on
            // every download's way). It goes with the body's first block (or its end), in the
            // same turn of the queue: one wake-up of it fewer a download.
            if let failure { return eventLoop.makeFailedFuture(failure) }
            let length = range?.total ?? contentLength
            expectedLength.withLockedValue { $0 = (length, 0) }
            progress(0, length)
            staging.withLockedValue { staging in
                staging.headBookkeeping = {
                    file.validator = validator
                    file.expectedSize = length
                    file.keepResumeRecord()
                }
            }
            return nil
        }
        if resuming, head.status == .partialContent, failure == nil,
            ResumedRange.problem(of: head, keptBytes: kept.size, validator: kept.validator, knownTotal: kept.expectedSize) == nil
        {
            // The rest of the kept bytes: nothing to empty, so the network thread reads on at
            // once too. Waiting here lost the body of a 206 that broke off soon after its head:
            // the client drops what came with the close while the head's future is pending.
            let total = ContentRange(head.headers.first(name: "Content-Range"))?.total ?? kept.expectedSize
            expectedLength.withLockedValue { $0 = (total, kept.size) }
            progress(kept.size, total)
            file.queue.async { file.expectedSize = total }
            return nil
        }
        let promise = eventLoop.makePromise(of: Void.self)
        file.queue.async {
            do throws(ActionFailure) {
                if head.status == .rangeNotSatisfiable, resuming {
                    // The file shrank or changed under the kept bytes: start over next time,
                    // or at once for bytes an earlier flowrun left (no retry may be left).
                    let keptFromEarlierRun = file.keptFromEarlierRun
                    try file.restart()
                    if keptFromEarlierRun { return promise.fail(RangeRefused(problem: "HTTP 416 for the rest of the file")) }
                    var refused = ActionFailure("\(url): HTTP 416 for the rest of the file: starting over", retryable: true)
                    refused.reasonOnLastAttempt = "\(url): HTTP 416 for the rest of the file: the server refused the range, and the retries are used up"
                    throw refused
                }
                if let failure { throw failure }
                let total: Int64?
                if head.status == .partialContent {
                    if let problem = ResumedRange.problem(of: head, keptBytes: file.size, validator: file.validator, knownTotal: file.expectedSize) {
                        try file.restart()
                        return promise.fail(RangeRefused(problem: problem))
                    }
                    total = ContentRange(head.headers.first(name: "Content-Range"))?.total ?? file.expectedSize
                    file.expectedSize = total
                } else {
                    if file.size > 0 { try file.restart() }
                    file.validator = validator
                    file.expectedSize = contentLength
                    file.keepResumeRecord()
                    total = contentLength
                }
                let start = file.size
                self.expectedLength.withLockedValue { $0 = (total, start) }
                progress(file.size, total)
                promise.succeed()
            } catch {
                promise.fail(error)
            }
        }
        return promise.futureResult
    }

    /// Body parts are taken at once until this many bytes wait to be written or hashed; then
    /// the next part's future waits until both have caught up to half of it. Receiving,
    /// hashing and writing overlap, and memory stays under this bound per transfer.
    static let writeBehindLimit = 4 << 20

    private struct Writes {
        /// Bytes taken and not yet written, and not yet hashed.
        var unwritten = 0
        var unhashed = 0
        var waiter: EventLoopPromise<Void>?
        var failure: ActionFailure?

        /// The waiting part's promise, once it may go on (or the transfer failed).
        mutating func release() -> EventLoopPromise<Void>? {
            guard failure != nil || max(unwritten, unhashed) <= HTTPTransfer.writeBehindLimit / 2 else { return nil }
            defer { waiter = nil }
            return waiter
        }
    }

    private let writes = NIOLockedValueBox(Writes())

    /// The block being filled, how many body bytes this response gave so far, and where its
    /// blocks are hashed (`hashesInline(bodyLength:)`), set from the head before any body part.
    private struct Staging {
        var block: StagedBlock?
        var received: Int64 = 0
        var hashesInline = false
        /// Whether the XXH3-128 is fed here, on the network thread, from the bytes just received
        /// (still in this core's cache), while the SHA-256 alone takes the hashing queue: a body
        /// with a `sha256:` not hashed inline. On the write queue, after each block's write, the
        /// XXH3 lengthened the chain of blocking writes that paces the transfer, and read the
        /// block from the other core's cache (bench/README.md, s43-sha).
        var hashesContent = false
        /// The head's work on the file's queue, done there just before the first block's.
        var headBookkeeping: (@Sendable () -> Void)?
    }

    /// A body whose Content-Length is at most this is hashed on the file's write queue, each
    /// block just before it is written: one thread wake-up a block instead of two. Many such
    /// files run at once (200 small downloads, 8 at a time), so the other core is kept busy by
    /// the other files, and the wake-ups were the cost (measured in bench/README.md). A longer
    /// body, or one of unknown length, is hashed on the file's hashing queue, beside its
    /// writes, so that one large download hashes and writes at once.
    static let inlineHashLimit = Int64(4 * DirectWrites.blockSize)

    static func hashesInline(bodyLength: Int64?) -> Bool {
        guard let bodyLength else { return false }
        return bodyLength <= inlineHashLimit
    }

    private let staging = NIOLockedValueBox(Staging())

    /// Copies the part into the block being filled and hands each full block to the file's
    /// hashing and write queues, in arrival order (`StagedBlock`); returns at once unless too
    /// many bytes wait for either. The network thread only receives and copies.
    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        received(buffer, on: task.eventLoop) ?? task.eventLoop.makeSucceededVoidFuture()
    }

    /// Nil when the next part may come at once (as `received(_:on:)` for the head).
    func received(_ buffer: ByteBuffer, on eventLoop: any EventLoop) -> EventLoopFuture<Void>? {
        if let failure = writeFailure { return eventLoop.makeFailedFuture(failure) }
        let received: Int64 = staging.withLockedValue { staging in
            buffer.withUnsafeReadableBytes { part in
                if staging.hashesContent { file.hashContent(part) }
                var rest = part
                while !rest.isEmpty {
                    let block = staging.block ?? StagedBlock()
                    rest = UnsafeRawBufferPointer(rebasing: rest[block.fill(from: rest)...])
                    staging.block = block.isFull ? nil : block
                    if block.isFull { handOff(block, hashingInline: staging.hashesInline, after: staging.headBookkeeping.take()) }
                }
            }
            staging.received += Int64(buffer.readableBytes)
            return staging.received
        }
        return reported(received, on: eventLoop)
    }

    /// Reports progress at `received` body bytes, and returns a future to wait for before the
    /// next read when too many bytes wait for the disk or the hash (nil when it may come at once).
    private func reported(_ received: Int64, on eventLoop: any EventLoop) -> EventLoopFuture<Void>? {
        let (start, total) = expectedLength.withLockedValue { ($0.start, $0.total) }
        progress(start + received, total)
        let wait: EventLoopPromise<Void>? = writes.withLockedValue { writes in
            guard writes.failure == nil, max(writes.unwritten, writes.unhashed) > Self.writeBehindLimit else { return nil }
            let promise = eventLoop.makePromise(of: Void.self)
            writes.waiter = promise
            return promise
        }
        return wait?.futureResult
    }

    /// The `PlainHTTPReader`'s body bytes: `read` fills the free space of the block being
    /// filled straight from the socket, and returns how many it put there. Returns that count,
    /// and a future to wait for before the next read when too many bytes wait for the disk or
    /// the hash (nil when the next read may come at once).
    func receivedDirect(
        on eventLoop: any EventLoop, _ read: (UnsafeMutableRawBufferPointer) throws -> Int
    ) throws -> (Int, EventLoopFuture<Void>?) {
        if let failure = writeFailure { throw failure }
        let block = staging.withLockedValue { $0.block.take() } ?? StagedBlock()
        let count: Int
        do {
            count = try block.fill(reading: read)
        } catch {
            staging.withLockedValue { $0.block = block }  // what came before stays for the file
            throw error
        }
        let (received, full) = staging.withLockedValue { staging in
            if staging.hashesContent { file.hashContent(UnsafeRawBufferPointer(rebasing: block.bytes[(block.count - count)...])) }
            staging.received += Int64(count)
            guard block.isFull else {
                staging.block = block
                return (staging.received, nil as (hashesInline: Bool, head: (@Sendable () -> Void)?)?)
            }
            return (staging.received, (staging.hashesInline, staging.headBookkeeping.take()))
        }
        // The reader's thread may wait: a small body's block is hashed and written on it.
        if let full { handOff(block, hashingInline: full.hashesInline, after: full.head, here: full.hashesInline) }
        return (count, reported(received, on: eventLoop))
    }

    /// Hands the block being filled to the file's queues: once the response ended, whichever
    /// way, before the file is settled, so that the file holds every byte received. `blocking`:
    /// on a thread that may wait (the plain reader's), where a small body's last block is
    /// hashed and written.
    func handOffStagedBytes(blocking: Bool = false) {
        let (block, hashesInline, head) = staging.withLockedValue { staging in
            defer { staging.block = nil }
            return (staging.block, staging.hashesInline, staging.headBookkeeping.take())
        }
        if let block, block.count > 0 {
            handOff(block, hashingInline: hashesInline, after: head, here: blocking && hashesInline)
        } else if let head {
            if blocking { file.queue.sync(execute: head) } else { file.queue.async(execute: head) }
        }
    }

    /// Hashes the block on the file's hashing queue, or with `hashingInline` on its write
    /// queue just before the write, and appends it on its write queue; the block's memory
    /// returns to the pool once both are done with it. A file with a SHA-256 to compute has
    /// only that on the hashing queue (not inline): its XXH3-128 was fed as the bytes came
    /// (`Staging.hashesContent`). `head`, the head's bookkeeping, runs on the write queue first.
    /// `here`: the write queue's turn runs on this thread (`sync`), which waits for it, rather
    /// than waking another.
    private func handOff(_ block: StagedBlock, hashingInline: Bool, after head: (@Sendable () -> Void)? = nil, here: Bool = false) {
        let count = block.count, file = file, writes = writes
        let splitsDigests = !hashingInline && file.withSHA256
        writes.withLockedValue { writes in
            writes.unwritten += count
            writes.unhashed += count
        }
        let hash: @Sendable () -> Void = {
            if splitsDigests { file.hashSHA256(block.bytes) } else { file.hash(block.bytes) }
            let waiter = writes.withLockedValue { writes in
                writes.unhashed -= count
                return writes.release()
            }
            waiter?.succeed()
        }
        if !hashingInline { file.hashing.async(execute: hash) }
        let write: @Sendable () -> Void = {
            head?()
            // `sync` on the idle hashing queue runs here, on this thread: no wake-up.
            if hashingInline { file.hashing.sync(execute: hash) }
            var failure = writes.withLockedValue { $0.failure }
            if failure == nil {
                do throws(ActionFailure) {
                    try file.appendPrehashed(block.bytes)
                } catch {
                    failure = error
                }
            }
            let waiter: EventLoopPromise<Void>? = writes.withLockedValue { writes in
                writes.unwritten -= count
                if writes.failure == nil { writes.failure = failure }
                return writes.release()
            }
            if let failure { waiter?.fail(failure) } else { waiter?.succeed() }
        }
        if here { file.queue.sync(execute: write) } else { file.queue.async(execute: write) }
    }

    /// A write that failed after its part was taken: the transfer fails with it.
    var writeFailure: ActionFailure? { writes.withLockedValue { $0.failure } }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {}

    /// The body's full length when the server said it: the check against a truncated body.
    var totalLength: Int64? { expectedLength.withLockedValue { $0.total } }

    /// 2xx goes on; 408, 429 and 5xx are worth another attempt (after Retry-After when given);
    /// any other status fails at once.
    static func failure(of head: HTTPResponseHead, url: String) -> ActionFailure? {
        let code = Int(head.status.code)
        if (200..<300).contains(code) {
            // A transfer coding besides chunked (`gzip, chunked`) is not taken off by the client,
            // so its bytes would be saved as the file's: curl decodes them; flowrun refuses.
            let codings = head.headers[canonicalForm: "Transfer-Encoding"].map { $0.lowercased() }.filter { $0 != "chunked" && $0 != "identity" }
            guard codings.isEmpty else {
                let named = head.headers[canonicalForm: "Transfer-Encoding"].joined(separator: ", ")
                return ActionFailure("\(url): the server sent the body with Transfer-Encoding '\(named)', which flowrun does not decode", retryable: false)
            }
            return nil
        }
        let retryable = code == 408 || code == 429 || code >= 500
        let after = head.headers.first(name: "Retry-After").flatMap { RetryAfter.milliseconds($0) }
        return ActionFailure("\(url): HTTP \(code) \(head.status.reasonPhrase)", retryable: retryable, retryAfterMilliseconds: retryable ? after : nil)
    }
}
