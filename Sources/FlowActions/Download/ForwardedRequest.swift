import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// A plain `http://` GET through an HTTP proxy, sent as curl sends it: `GET http://host/path
/// HTTP/1.1` to the proxy (the absolute form, RFC 9112 3.2.2), with Proxy-Authorization on it
/// when the proxy setting has credentials. async-http-client opens a CONNECT tunnel for every
/// proxied request, which a proxy that allows CONNECT only to port 443 (squid's default)
/// refuses, and which a caching proxy cannot cache. One connection a request, closed at its
/// end. The response goes to the `HTTPTransfer` as async-http-client's would; the future fails
/// with the errors async-http-client gives for the same events, so they are classified alike.
final class ForwardedRequest: Sendable {
    private enum State {
        case waiting
        case connecting(EventLoopFuture<any Channel>)
        case connected(any Channel)
        case cancelled
    }

    private let head: HTTPRequestHead
    private let proxy: ProxyRules.Proxy
    private let connectTimeout: TimeAmount
    private let readTimeout: TimeAmount
    private let state = NIOLockedValueBox(State.waiting)

    /// Nil when `url` is not an http URL with a host (async-http-client's request checked it).
    init?(_ request: HTTPClient.Request, proxy: ProxyRules.Proxy, connectTimeout: TimeAmount, readTimeout: TimeAmount) {
        guard var parts = URLComponents(url: request.url, resolvingAgainstBaseURL: false), let host = parts.host, !host.isEmpty else { return nil }
        // What goes on the request line: no credentials (they went to Authorization), no fragment.
        parts.user = nil
        parts.password = nil
        parts.fragment = nil
        if parts.percentEncodedPath.isEmpty { parts.percentEncodedPath = "/" }
        guard let target = parts.string else { return nil }
        var headers = request.headers
        if !headers.contains(name: "Host") {
            let name = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            headers.add(name: "Host", value: parts.port.map { $0 == 80 ? name : "\(name):\($0)" } ?? name)
        }
        if let credentials = proxy.credentials, !headers.contains(name: "Proxy-Authorization") {
            headers.add(name: "Proxy-Authorization", value: "Basic \(credentials)")
        }
        head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: headers)
        self.proxy = proxy
        self.connectTimeout = connectTimeout
        self.readTimeout = readTimeout
    }

    /// Connects to the proxy and sends the request; the future ends with the response's end.
    func start(on group: any EventLoopGroup, into transfer: HTTPTransfer) -> EventLoopFuture<Void> {
        let eventLoop = group.next()
        let done = eventLoop.makePromise(of: Void.self)
        let head = head, readTimeout = readTimeout
        let connecting = ClientBootstrap(group: eventLoop)
            .connectTimeout(connectTimeout)
            .channelOption(.autoRead, value: false)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(
                        ForwardedResponseHandler(head: head, transfer: transfer, readTimeout: readTimeout, done: done))
                }
            }
            .connect(host: proxy.host, port: proxy.port)
        state.withLockedValue { state in
            // Cancelled already: it stays so, and the connection is closed once made.
            if case .waiting = state { state = .connecting(connecting) }
        }
        connecting.whenComplete { result in
            switch result {
            case .success(let channel):
                let keep: Bool = self.state.withLockedValue { state in
                    guard case .connecting = state else { return false }
                    state = .connected(channel)
                    return true
                }
                // Cancelled while connecting: the request ends cancelled, its connection closed.
                if !keep { channel.pipeline.fireUserInboundEventTriggered(ForwardedResponseHandler.Cancel()) }
            case .failure(let error):
                if case .connectTimeout = error as? ChannelError { return done.fail(HTTPClientError.connectTimeout) }
                done.fail(error)
            }
        }
        done.futureResult.whenComplete { _ in
            // The response is over (or failed): the connection is not reused.
            let channel: (any Channel)? = self.state.withLockedValue { state in
                if case .connected(let channel) = state { return channel }
                return nil
            }
            channel?.close(promise: nil)
        }
        return done.futureResult
    }

    /// Stops the request: its future fails with `HTTPClientError.cancelled`, as a task's would.
    func cancel() {
        let previous: State = state.withLockedValue { state in
            defer { state = .cancelled }
            return state
        }
        switch previous {
        case .connected(let channel): channel.pipeline.fireUserInboundEventTriggered(ForwardedResponseHandler.Cancel())
        case .connecting, .waiting, .cancelled: break  // `start` sees the state once connected
        }
    }
}

/// Sends the request head once connected, then hands the response's parts to the transfer
/// one at a time, each after the future of the one before (so the file's back-pressure holds),
/// and reads more only when all are taken.
private final class ForwardedResponseHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    struct Cancel {}

    private let head: HTTPRequestHead
    private let transfer: HTTPTransfer
    private let readTimeout: TimeAmount
    private let done: EventLoopPromise<Void>
    /// Parts read and not yet handed over, and whether one is with the transfer now.
    private var waiting: [HTTPClientResponsePart] = []
    private var busy = false
    /// The response's end was read (it may still wait behind parts going to the file).
    private var endRead = false
    private var finished = false
    private var timeout: Scheduled<Void>?

    init(head: HTTPRequestHead, transfer: HTTPTransfer, readTimeout: TimeAmount, done: EventLoopPromise<Void>) {
        self.head = head
        self.transfer = transfer
        self.readTimeout = readTimeout
        self.done = done
    }

    func channelActive(context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        read(context: context)
        context.fireChannelActive()
    }

    /// Asks for more bytes, and fails the request when none come for `readTimeout`.
    private func read(context: ChannelHandlerContext) {
        guard !finished else { return }
        timeout?.cancel()
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timeout = context.eventLoop.scheduleTask(in: readTimeout) {
            let (handler, context) = loopBound.value
            handler.finish(.failure(HTTPClientError.readTimeout), context: context)
        }
        context.read()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        timeout?.cancel()
        let part = unwrapInboundIn(data)
        if case .end = part { endRead = true }
        waiting.append(part)
        handOver(context: context)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if !busy, waiting.isEmpty, !endRead { read(context: context) }
    }

    private func handOver(context: ChannelHandlerContext) {
        while !busy, !finished, !waiting.isEmpty {
            let future: EventLoopFuture<Void>
            switch waiting.removeFirst() {
            case .head(let head): future = transfer.received(head, on: context.eventLoop) ?? context.eventLoop.makeSucceededVoidFuture()
            case .body(let part): future = transfer.received(part, on: context.eventLoop) ?? context.eventLoop.makeSucceededVoidFuture()
            case .end:
                return finish(.success(()), context: context)
            }
            busy = true
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            future.hop(to: context.eventLoop).whenComplete { result in
                let (handler, context) = loopBound.value
                handler.busy = false
                switch result {
                case .failure(let error): handler.finish(.failure(error), context: context)
                case .success:
                    handler.handOver(context: context)
                    if !handler.busy, handler.waiting.isEmpty, !handler.endRead { handler.read(context: context) }
                }
            }
        }
    }

    private func finish(_ result: Result<Void, any Error>, context: ChannelHandlerContext) {
        guard !finished else { return }
        finished = true
        timeout?.cancel()
        waiting = []
        done.completeWith(result)
        context.close(promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is Cancel { return finish(.failure(HTTPClientError.cancelled), context: context) }
        context.fireUserInboundEventTriggered(event)
    }

    /// A body cut by the close is async-http-client's `remoteConnectionClosed` too.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let cut = (error as? HTTPParserError) == .invalidEOFState
        finish(.failure(cut ? HTTPClientError.remoteConnectionClosed : error), context: context)
    }

    /// The connection closed before the response's end came (the decoder ends a body that runs
    /// to the close before this): the body was cut, or no answer came. Parts not yet taken are
    /// dropped, as async-http-client drops them; a retry resumes from the bytes on disk.
    func channelInactive(context: ChannelHandlerContext) {
        if !endRead { finish(.failure(HTTPClientError.remoteConnectionClosed), context: context) }
        context.fireChannelInactive()
    }
}
