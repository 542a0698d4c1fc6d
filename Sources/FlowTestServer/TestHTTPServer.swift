import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// A real HTTP/1.1 server on 127.0.0.1 for download tests: each path answers as its route says
/// (ranges, statuses, bodies that end early or stall, redirects), and every request is counted.
/// With `tls`, it serves HTTPS. With `dropsReusedConnections`, a request that comes on a
/// connection which already carried one is read and then answered by closing the connection:
/// the race of a client reusing a kept-alive connection the server is closing, made certain. It is also a proxy: a CONNECT is answered 200 and the tunnel's
/// requests are served from the same routes (AsyncHTTPClient tunnels plain http too), over TLS
/// with `tunnelTLS`.
package final class TestHTTPServer: Sendable {
    package struct Request: Sendable {
        /// The request target as sent: a path, or an absolute URL through a proxy.
        package var target: String
        package var path: String
        package var headers: [(String, String)]
        /// Whether the connection had carried a request before this one.
        package var reusedConnection = false
        package func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    package struct Response: Sendable {
        package var status: Int = 200
        package var headers: [(String, String)] = []
        package var body: [UInt8] = []
        /// Answers `Range: bytes=N-` with 206, unless an If-Range differs from the ETag or
        /// Last-Modified among `headers`.
        package var servesRanges = false
        /// Sends the head (with the full Content-Length) and this many body bytes, then closes.
        package var closeAfter: Int?
        /// Sends the head and this many body bytes, then nothing more, holding the connection open.
        package var stallAfter: Int?
        /// Closes the connection without a byte of answer.
        package var unanswered = false
        /// Sends no Content-Length: the body goes chunked, its length unknown until its end.
        package var omitsLength = false
        /// How a 206 that `servesRanges` makes goes wrong.
        package var rangeFault: RangeFault?
        /// The whole answer as these bytes, past the HTTP encoder, then the connection closed:
        /// what a misbehaving server sends that a well-formed head cannot say.
        package var raw: [UInt8]?

        package init(status: Int = 200, headers: [(String, String)] = [], body: [UInt8] = []) {
            self.status = status
            self.headers = headers
            self.body = body
        }
    }

    /// A 206 that does not continue the bytes the client has, as misbehaving servers send.
    package enum RangeFault: Sendable {
        /// The 206 carries this ETag, as if If-Range had been ignored on a changed file.
        case etag(String)
        /// Content-Range ends in `/*`.
        case unknownTotal
        /// The range, and the bytes sent, start this many bytes after the one asked for.
        case offset(Int)
        /// The 206 carries this Last-Modified.
        case lastModified(String)
    }

    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private let channel: any Channel
    private let routes = NIOLockedValueBox<[String: @Sendable (Request) -> Response]>([:])
    private let seen = NIOLockedValueBox<[Request]>([])
    private let sent = NIOLockedValueBox<[String: Int]>([:])
    package let port: Int

    /// TLS spoken inside a CONNECT tunnel: this server then stands for the HTTPS origin too.
    let tunnelTLS: NIOSSLContext?
    let dropsReusedConnections: Bool

    package init(tls: NIOSSLContext? = nil, tunnelTLS: NIOSSLContext? = nil, dropsReusedConnections: Bool = false) throws {
        self.tunnelTLS = tunnelTLS
        self.dropsReusedConnections = dropsReusedConnections
        let server = Box()
        channel = try ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                    try Handler.addHTTP(to: channel, server: server)
                }
            }
            .bind(host: "127.0.0.1", port: 0).wait()
        port = channel.localAddress?.port ?? 0
        server.value = self
    }

    /// A self-signed certificate for 127.0.0.1 and localhost, made by `openssl req` in `folder`:
    /// the server's TLS context and the PEM path a client trusts (SSL_CERT_FILE).
    package static func makeTLS(in folder: String) throws -> (context: NIOSSLContext, certificateFile: String) {
        let key = folder + "/test-key.pem", certificate = folder + "/test-cert.pem"
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        openssl.arguments = [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate,
            "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
        ]
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        guard openssl.terminationStatus == 0 else { throw TLSSetupFailed() }
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem))
        )
        return (try NIOSSLContext(configuration: configuration), certificate)
    }

    struct TLSSetupFailed: Error {}

    package var baseURL: String { "http://127.0.0.1:\(port)" }

    package func route(_ path: String, _ answer: @escaping @Sendable (Request) -> Response) {
        routes.withLockedValue { $0[path] = answer }
    }

    /// Answers `path` with the head and the first `sent` bytes of `body`, then sends nothing more
    /// while the connection stays open: a transfer that stalls.
    package func routeStalling(_ path: String, body: [UInt8], after sent: Int) {
        route(path) { _ in
            var response = Response(body: body)
            response.stallAfter = sent
            return response
        }
    }

    /// Every request so far, in order.
    package var requests: [Request] { seen.withLockedValue { $0 } }

    package func requestCount(_ path: String) -> Int { requests.filter { $0.path == path }.count }

    /// How many body bytes the answers to `path` handed to their connections, all requests
    /// together: what a resumed download fetched again.
    package func bodyBytesSent(_ path: String) -> Int { sent.withLockedValue { $0[path, default: 0] } }

    fileprivate func counted(_ bytes: Int, for path: String) {
        sent.withLockedValue { $0[path, default: 0] += bytes }
    }

    package func shutdown() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }

    fileprivate func record(_ request: Request) {
        seen.withLockedValue { $0.append(request) }
    }

    fileprivate func answer(_ request: Request) -> Response {
        record(request)
        guard let route = routes.withLockedValue({ $0[request.path] }) else { return Response(status: 404) }
        var response = route(request)
        guard response.servesRanges, response.status == 200 else { return response }
        if !response.headers.contains(where: { $0.0.lowercased() == "accept-ranges" }) {
            response.headers.append(("Accept-Ranges", "bytes"))
        }
        guard let range = request.header("Range"), range.hasPrefix("bytes="),
            let start = Int(range.dropFirst(6).prefix { $0 != "-" }), start < response.body.count
        else { return response }
        if let ifRange = request.header("If-Range") {
            let validators = response.headers.filter { ["etag", "last-modified"].contains($0.0.lowercased()) }.map(\.1)
            guard validators.contains(ifRange) else { return response }
        }
        let total = response.body.count
        var first = start, totalText = "\(total)"
        switch response.rangeFault {
        case .etag(let tag):
            response.headers.removeAll { $0.0.lowercased() == "etag" }
            response.headers.append(("ETag", tag))
        case .lastModified(let date):
            response.headers.removeAll { $0.0.lowercased() == "last-modified" }
            response.headers.append(("Last-Modified", date))
        case .unknownTotal: totalText = "*"
        case .offset(let shift): first = min(max(0, start + shift), total - 1)
        case nil: break
        }
        response.status = 206
        response.headers.append(("Content-Range", "bytes \(first)-\(total - 1)/\(totalText)"))
        response.body = Array(response.body[first...])
        return response
    }

    final class Box: @unchecked Sendable {
        weak var value: TestHTTPServer?
    }

    private final class Handler: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        private let server: Box
        private var head: HTTPRequestHead?
        /// Requests this connection has carried.
        private var carried = 0

        init(server: Box) { self.server = server }

        static func addHTTP(to channel: any Channel, server: Box) throws {
            let handlers = channel.pipeline.syncOperations
            try handlers.addHandler(HTTPResponseEncoder(), name: "http-encoder")
            try handlers.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes)), name: "http-decoder")
            try handlers.addHandler(Handler(server: server), name: "routes")
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head): self.head = head
            case .body: break
            case .end:
                guard let head, let server = server.value else { return }
                if head.method == .CONNECT {
                    _ = server.answer(Request(target: head.uri, path: head.uri, headers: head.headers.map { ($0.name, $0.value) }))
                    return openTunnel(context: context)
                }
                let path = URL(string: head.uri).map { $0.path.isEmpty ? "/" : $0.path } ?? head.uri
                var request = Request(target: head.uri, path: path, headers: head.headers.map { ($0.name, $0.value) })
                request.reusedConnection = carried > 0
                carried += 1
                if request.reusedConnection, server.dropsReusedConnections {
                    server.record(request)
                    return context.close(promise: nil)
                }
                let response = server.answer(request)
                if response.unanswered { return context.close(promise: nil) }
                respond(response, context: context)
                server.counted(min(response.closeAfter ?? response.stallAfter ?? response.body.count, response.body.count), for: path)
            }
        }

        /// Answers 200, then serves what comes through the tunnel with a fresh HTTP pipeline.
        private func openTunnel(context: ChannelHandlerContext) {
            let ok = HTTPResponseHead(version: .http1_1, status: .ok, headers: ["Content-Length": "0"])
            context.write(wrapOutboundOut(.head(ok)), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            let channel = context.channel, pipeline = context.pipeline, server = server
            pipeline.removeHandler(name: "http-decoder")
                .flatMap { pipeline.removeHandler(name: "http-encoder") }
                .flatMap { pipeline.removeHandler(name: "routes") }
                .whenSuccess {
                    if let tls = server.value?.tunnelTLS {
                        try? channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls))
                    }
                    try? Self.addHTTP(to: channel, server: server)
                }
        }

        private func respond(_ response: Response, context: ChannelHandlerContext) {
            if let raw = response.raw, let encoder = try? context.pipeline.syncOperations.context(name: "http-encoder") {
                // Written from the encoder's place in the pipeline, so it goes out as it is.
                let channel = context.channel
                encoder.writeAndFlush(NIOAny(ByteBuffer(bytes: raw))).whenComplete { _ in channel.close(promise: nil) }
                return
            }
            var headers = HTTPHeaders(response.headers)
            if !headers.contains(name: "Content-Length") && !response.omitsLength {
                headers.add(name: "Content-Length", value: "\(response.body.count)")
            }
            let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            let sent = min(response.closeAfter ?? response.stallAfter ?? response.body.count, response.body.count)
            if sent > 0 {
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: response.body[0..<sent])))), promise: nil)
            }
            if response.closeAfter != nil {
                context.flush()
                context.close(promise: nil)
            } else if response.stallAfter != nil {
                context.flush()
            } else {
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}
