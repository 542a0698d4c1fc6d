import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOHTTP1

/// Plain `http://` downloads with no proxy, read by flowrun itself rather than by
/// async-http-client: a Content-Length body goes from the socket straight into the block being
/// filled (`HTTPTransfer.receivedDirect`), with no copy out of a receive buffer first, which
/// with async-http-client's plumbing cost ~40% of a 200 x 1 MiB run's CPU beside the hash
/// (bench/README.md, s41-dl and s42-reader).
///
/// The verdicts stay async-http-client's: the request is encoded, and the response's head, its
/// 1xx, chunked and close-delimited bodies judged, by the same NIO `HTTPRequestEncoder` and
/// `HTTPResponseDecoder` (llhttp) it uses, driven in an `EmbeddedChannel`; only the rest of a
/// Content-Length body, after the head's read, is read without the decoder. Failures are the
/// errors async-http-client gives for the same events, so `Downloader` words and retries them
/// alike. Each request runs on a thread of its own (`BlockingWorkers`) with blocking reads;
/// connections are kept alive per host and port and reused, as async-http-client's pool did.
final class PlainHTTPReader: Sendable {
    private let workers = BlockingWorkers()
    /// The kept-alive connections by host and port; nil once shut down, when a request that
    /// ends later closes its connection.
    private let idle = NIOLockedValueBox<[String: [PlainSocket]]?>([:])
    private let connectTimeout: TimeAmount
    private let readTimeout: TimeAmount
    private let resolver: HostResolver
    private let connectWaits: PlainSocket.ConnectWaits?

    init(settings: Downloader.Settings) {
        connectTimeout = settings.connectTimeout
        readTimeout = settings.readTimeout
        resolver = settings.resolver
        connectWaits = settings.connectWaits
    }

    /// The request as async-http-client would send it.
    struct Request {
        var host: String
        var port: Int
        var head: HTTPRequestHead
        var key: String { "\(host):\(port)" }

        /// Nil when async-http-client would refuse the request's header names: it then fails
        /// the request in its own words.
        init?(_ request: HTTPClient.Request) {
            guard request.headers.allSatisfy({ name, _ in name.utf8.allSatisfy(Self.isTokenByte) }) else { return nil }
            var headers = request.headers
            // As async-http-client's framing of a GET without a body, and its Host.
            headers.remove(name: "Content-Length")
            headers.remove(name: "Transfer-Encoding")
            host = request.host
            port = request.port
            if !headers.contains(name: "host") {
                let isIPv6: Bool
                if case .v6? = try? SocketAddress(ipAddress: host, port: port) { isIPv6 = true } else { isIPv6 = false }
                var value = isIPv6 ? "[\(host)]" : host
                if port != 80 { value += ":\(port)" }
                headers.add(name: "host", value: value)
            }
            head = HTTPRequestHead(version: .http1_1, method: .GET, uri: Self.target(of: request.url), headers: headers)
        }

        /// The request target async-http-client sends: the percent-encoded path, `/` when
        /// empty, and the query.
        private static func target(of url: URL) -> String {
            var target = url.path.isEmpty ? "/" : URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? url.path
            if let query = url.query { target += "?" + query }
            return target
        }

        /// RFC 9110's token characters, which async-http-client allows in a header's name.
        private static func isTokenByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }

    /// One request's hold on its connection, for `HTTPAttempt.cancel`, and the one place its
    /// outcome is given. A cancel while a socket is held shuts it down, which wakes a connect or
    /// a read blocked on it, and the worker then ends the request; a cancel while none is held
    /// (the job queued, the name being looked up, between two addresses) ends it at once, as
    /// does the connect timeout during the lookup: the worker's later outcome is then dropped,
    /// and a socket it makes is closed unused.
    final class Exchange: Sendable {
        private enum Phase {
            /// No socket held: the worker may still make one.
            case open
            /// The host's name is being looked up, which only a cancel or the timeout cuts short.
            case lookingUp
            case holding(PlainSocket)
            /// The outcome is given.
            case ended
        }
        private struct State {
            var phase = Phase.open
            var cancelled = false
            var ended: Ended?
        }
        typealias Ended = @Sendable (Result<Void, any Error>) -> Void
        private let state = NIOLockedValueBox(State())

        /// Takes the call the outcome goes to; false when cancelled already (it then ended).
        fileprivate func begin(_ ended: @escaping Ended) -> Bool {
            let cancelled = state.withLockedValue { state in
                state.ended = ended
                return state.cancelled
            }
            if cancelled { Self.endElsewhere(ended, HTTPClientError.cancelled) }
            return !cancelled
        }

        /// An end that does not come from the worker: on one of Dispatch's threads, which may
        /// block as `ended` may, and not on the canceller's (the file's queue or the loop).
        private static func endElsewhere(_ ended: Ended?, _ error: HTTPClientError) {
            guard let ended else { return }
            DispatchQueue.global().async { ended(.failure(error)) }
        }

        func cancel() {
            let ended: Ended? = state.withLockedValue { state in
                state.cancelled = true
                switch state.phase {
                case .holding(let socket):
                    socket.shutdown()
                    return nil
                case .open, .lookingUp:
                    return end(&state)
                case .ended:
                    return nil
                }
            }
            Self.endElsewhere(ended, HTTPClientError.cancelled)
        }

        /// The connect timeout, come while the name is still being looked up.
        fileprivate func lookupTimedOut() {
            let ended: Ended? = state.withLockedValue { state in
                guard case .lookingUp = state.phase else { return nil }
                return end(&state)
            }
            Self.endElsewhere(ended, HTTPClientError.connectTimeout)
        }

        /// The worker's outcome, unless one was given already.
        fileprivate func finish(_ result: Result<Void, any Error>) {
            let (ended, cancelled): (Ended?, Bool) = state.withLockedValue { state in (end(&state), state.cancelled) }
            guard let ended else { return }
            // A cancel ends the request "cancelled" however the worker saw it end: a body that
            // runs to the close would otherwise end whole when `shutdown()` cut it.
            ended(cancelled ? .failure(HTTPClientError.cancelled) : result)
        }

        private func end(_ state: inout State) -> Ended? {
            if case .ended = state.phase { return nil }
            state.phase = .ended
            defer { state.ended = nil }
            return state.ended
        }

        var isCancelled: Bool { state.withLockedValue { $0.cancelled } }

        /// Runs the name lookup, during which the connect timeout at `deadline` ends the request
        /// too; after it, `hold` says whether the request still goes on.
        fileprivate func lookingUp<Addresses>(
            timingOutAt deadline: NIODeadline, on loop: any EventLoop, _ lookup: () throws -> Addresses
        ) throws
            -> Addresses
        {
            let started = state.withLockedValue { state in
                guard case .open = state.phase, !state.cancelled else { return false }
                state.phase = .lookingUp
                return true
            }
            guard started else { throw HTTPClientError.cancelled }
            let timeout = loop.scheduleTask(deadline: deadline) { self.lookupTimedOut() }
            defer {
                let goesOn = state.withLockedValue { state in
                    guard case .lookingUp = state.phase else { return false }
                    state.phase = .open
                    return true
                }
                // Ended during the lookup, the run may be over and its loop shut down: the
                // timer is left to fire for nothing, or to go with the loop.
                if goesOn { timeout.cancel() }
            }
            return try lookup()
        }

        /// False when cancelled or ended already: the socket is then not to be used.
        func hold(_ socket: PlainSocket) -> Bool {
            state.withLockedValue { state in
                guard case .open = state.phase, !state.cancelled else { return false }
                state.phase = .holding(socket)
                return true
            }
        }

        /// Before the socket is closed or kept: a later `cancel()` must not shut it down.
        func release() {
            state.withLockedValue { state in
                if case .holding = state.phase { state.phase = .open }
            }
        }
    }

    /// Makes the request on a worker thread, and calls `ended` once, on a thread that may block
    /// (the worker's, or for a request ended before it held a socket, one of Dispatch's), with
    /// the response's end or the error async-http-client would give (a name that does not
    /// resolve: `HostResolver.Unresolved`). `fresh`: not on a kept-alive connection.
    func start(
        _ request: Request, fresh: Bool, exchange: Exchange, into transfer: HTTPTransfer, on loop: any EventLoop,
        ended: @escaping @Sendable (Result<Void, any Error>) -> Void
    ) {
        guard exchange.begin(ended) else { return }
        workers.run {
            exchange.finish(Result { try self.run(request, fresh: fresh, exchange: exchange, into: transfer, on: loop) })
        }
    }

    /// Closes the kept-alive connections and lets the threads end: at the end of the run.
    func shutdown() {
        workers.stop()
        let sockets = idle.withLockedValue { idle in
            defer { idle = nil }
            return idle?.values.flatMap { $0 } ?? []
        }
        for socket in sockets { socket.close() }
    }

    private func keptAlive(_ key: String) -> PlainSocket? {
        while let socket = idle.withLockedValue({ $0?[key]?.popLast() }) {
            if !socket.isStale { return socket }
            socket.close()
        }
        return nil
    }

    private func keep(_ socket: PlainSocket, _ key: String) {
        let kept = idle.withLockedValue { idle in
            guard idle != nil, (idle?[key]?.count ?? 0) < Downloader.connectionsPerHost else { return false }
            idle?[key, default: []].append(socket)
            return true
        }
        if !kept { socket.close() }
    }

    /// The host's addresses: an IP address as it is, a name as the resolver says, within the
    /// connect timeout as curl's `--connect-timeout` (which counts the name's lookup too). A
    /// lookup cannot be interrupted: a cancel or the timeout ends the request without waiting
    /// for it (`Exchange`), and this worker drops what it finds.
    private func addresses(of request: Request, until deadline: NIODeadline, for exchange: Exchange, on loop: any EventLoop) throws -> [SocketAddress] {
        if let address = try? SocketAddress(ipAddress: request.host, port: request.port) { return [address] }
        return try exchange.lookingUp(timingOutAt: deadline, on: loop) { try resolver.addresses(request.host, request.port) }
    }

    private func run(_ request: Request, fresh: Bool, exchange: Exchange, into transfer: HTTPTransfer, on loop: any EventLoop) throws {
        // async-http-client's encoder and decoder, as its connections set them up.
        let codec = EmbeddedChannel()
        defer { _ = try? codec.finish(acceptAlreadyClosed: true) }
        try codec.pipeline.syncOperations.addHandler(HTTPRequestEncoder())
        try codec.pipeline.syncOperations.addHandler(
            ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes, informationalResponseStrategy: .forward)))
        try codec.writeOutbound(HTTPClientRequestPart.head(request.head))
        try codec.writeOutbound(HTTPClientRequestPart.end(nil))
        var requestBytes = ByteBuffer()
        while var part = try codec.readOutbound(as: ByteBuffer.self) { requestBytes.writeBuffer(&part) }

        let socket: PlainSocket
        if let kept = fresh ? nil : keptAlive(request.key) {
            guard exchange.hold(kept) else {
                keep(kept, request.key)
                throw HTTPClientError.cancelled
            }
            socket = kept
        } else {
            let deadline = NIODeadline.now() + connectTimeout
            let addresses = try addresses(of: request, until: deadline, for: exchange, on: loop)
            socket = try PlainSocket.connect(to: addresses, until: deadline, readTimeout: readTimeout, for: exchange, waits: connectWaits)
        }
        var keepsConnection = false
        defer {
            exchange.release()
            if keepsConnection && !exchange.isCancelled { keep(socket, request.key) } else { socket.close() }
        }
        try requestBytes.withUnsafeReadableBytes { try socket.send($0) }

        var response = Response(transfer: transfer, loop: loop)
        let closeAsked = request.head.headers[canonicalForm: "Connection"].contains { $0.lowercased() == "close" }
        // The head, and any body but the rest of a Content-Length one, through the decoder.
        while true {
            let size = response.head == nil ? Self.headReadSize : Self.bodyReadSize
            var buffer = ByteBufferAllocator().buffer(capacity: size)
            let count = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { try socket.read(into: $0) }
            var decoderFailure: (any Error)?
            do {
                if count == 0 {
                    // The close ends a body that runs to it, or cuts one (llhttp's verdict).
                    codec.pipeline.fireChannelInactive()
                    try codec.throwIfErrorCaught()
                } else {
                    try codec.writeInbound(buffer)
                }
            } catch {
                decoderFailure = error
            }
            while let part = try codec.readInbound(as: HTTPClientResponsePart.self) { try response.take(part) }
            if response.ended {
                keepsConnection = count > 0 && decoderFailure == nil && !closeAsked && response.head?.isKeepAlive == true
                return
            }
            if let decoderFailure { throw decoderFailure }
            if count == 0 { throw HTTPClientError.remoteConnectionClosed }
            if let head = response.head, let length = Self.contentLength(of: head) {
                try response.readRest(of: length, from: socket)
                keepsConnection = !closeAsked && head.isKeepAlive
                return
            }
        }
    }

    /// The first read of a response: enough for most heads, and little of a body to copy.
    private static let headReadSize = 16 * 1024
    /// The reads of a body the decoder frames (chunked, or up to the close).
    private static let bodyReadSize = 64 * 1024

    /// The body's length when it is framed by a Content-Length alone (no transfer coding, one
    /// length), which is the one framing read without the decoder.
    private static func contentLength(of head: HTTPResponseHead) -> Int64? {
        guard !head.headers.contains(name: "Transfer-Encoding") else { return nil }
        let lengths = head.headers[canonicalForm: "Content-Length"]
        guard lengths.count == 1, let length = Int64(lengths[0]), length >= 0 else { return nil }
        return length
    }

    /// One response's parts handed to the transfer, each after the one before was taken.
    private struct Response {
        let transfer: HTTPTransfer
        let loop: any EventLoop
        /// The final head (1xx ones are skipped, as async-http-client skips them).
        var head: HTTPResponseHead?
        var bodyBytes: Int64 = 0
        var ended = false

        mutating func take(_ part: HTTPClientResponsePart) throws {
            switch part {
            case .head(let head):
                guard self.head == nil, head.status.code >= 200 || head.status == .switchingProtocols else { return }
                self.head = head
                try transfer.received(head, on: loop)?.wait()
            case .body(let part):
                guard head != nil, !ended else { return }
                bodyBytes += Int64(part.readableBytes)
                try transfer.received(part, on: loop)?.wait()
            case .end:
                if head != nil { ended = true }
            }
        }

        /// The rest of a Content-Length body, read straight into the transfer's blocks.
        func readRest(of length: Int64, from socket: PlainSocket) throws {
            var remaining = length - bodyBytes
            while remaining > 0 {
                let wanted = remaining
                let (count, wait) = try transfer.receivedDirect(on: loop) { space in
                    let count = try socket.read(into: UnsafeMutableRawBufferPointer(rebasing: space.prefix(Int(min(Int64(space.count), wanted)))))
                    guard count > 0 else { throw HTTPClientError.remoteConnectionClosed }
                    return count
                }
                remaining -= Int64(count)
                try wait?.wait()
            }
        }
    }
}
