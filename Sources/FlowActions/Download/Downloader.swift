import AsyncHTTPClient
import FlowModel
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Fetches URLs into `PartialFile`s: one per run, owning the run's HTTP clients (one per proxy
/// in use) on an event loop group of its own, never the engine's.
package final class Downloader: Sendable {
    package struct Settings: Sendable {
        /// How long a connection may go without a byte before the attempt fails (retryable).
        package var readTimeout: TimeAmount = .seconds(30)
        /// How long a connection may take to be made, the name's lookup included (as curl's).
        package var connectTimeout: TimeAmount = .seconds(30)
        package var maximumRedirects = 10
        /// How plain http downloads look a host name up (a test's holds the lookup).
        package var resolver = HostResolver.system
        /// Told when a plain http download's connect waits for the server's answer: a test
        /// stops the download then.
        package var connectWaits: (@Sendable (_ descriptor: Int32) -> Void)?
        package init() {}
    }

    /// Made with the first client, so that a run without http downloads starts no thread.
    private struct Clients {
        var group: MultiThreadedEventLoopGroup?
        /// Read with the first https client: a run without https downloads never parses SSL_CERT_FILE.
        var tls: Result<TLSConfiguration, ActionFailure>?
        var byKind: [ClientKind: HTTPClient] = [:]

        mutating func eventLoopGroup() -> MultiThreadedEventLoopGroup {
            let group = self.group ?? MultiThreadedEventLoopGroup(numberOfThreads: 1)
            self.group = group
            return group
        }
    }

    /// The run's network thread, for the clients and the requests forwarded to a proxy.
    private func eventLoopGroup() -> MultiThreadedEventLoopGroup {
        clients.withLockedValue { $0.eventLoopGroup() }
    }

    /// A client per proxy in use; `fresh` ones use each connection once (for a retry after a
    /// kept-alive connection died). Only `secure` ones (for https URLs) have a TLS
    /// configuration: a run of plain http downloads never reads the trust roots, nor fails on
    /// an unreadable SSL_CERT_FILE (curl reads its CA file for https only, too).
    private struct ClientKind: Hashable {
        var proxy: ProxyRules.Proxy?
        var fresh: Bool
        var secure: Bool
    }

    /// As curl's `--parallel-max` default (50), rounded up: the most connections a client opens
    /// to one host; beyond it requests wait for a connection to come free.
    static let connectionsPerHost = 64

    private let clients = NIOLockedValueBox(Clients())
    /// Plain `http://` with no proxy: read by flowrun itself, straight into the file's blocks.
    private let reader: PlainHTTPReader
    private let proxies: ProxyRules
    private let settings: Settings
    private let certificateFile: String?

    package init(environment: [String: String], settings: Settings = Settings()) {
        proxies = ProxyRules(environment: environment)
        self.settings = settings
        certificateFile = environment["SSL_CERT_FILE"]
        reader = PlainHTTPReader(settings: settings)
    }

    /// The system's trust roots, plus those of `SSL_CERT_FILE` when set.
    private static func tlsConfiguration(certificateFile: String?) -> Result<TLSConfiguration, ActionFailure> {
        var configuration = TLSConfiguration.makeClientConfiguration()
        guard let certificateFile, !certificateFile.isEmpty else { return .success(configuration) }
        do {
            configuration.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMFile(certificateFile))]
            return .success(configuration)
        } catch {
            return .failure(ActionFailure("cannot read SSL_CERT_FILE \(certificateFile): \(error)", retryable: false))
        }
    }

    /// Shuts the clients and their threads down: at the end of the run.
    package func shutdown() {
        let (all, group) = clients.withLockedValue { clients in
            defer { clients = Clients() }
            return (Array(clients.byKind.values), clients.group)
        }
        for client in all { try? client.syncShutdown() }
        reader.shutdown()
        try? group?.syncShutdownGracefully()
    }

    private func client(for proxy: ProxyRules.Proxy?, fresh: Bool, secure: Bool) throws(ActionFailure) -> HTTPClient {
        let kind = ClientKind(proxy: proxy, fresh: fresh, secure: secure)
        let made: Result<HTTPClient, ActionFailure> = clients.withLockedValue { clients in
            if let client = clients.byKind[kind] { return .success(client) }
            var tlsConfiguration: TLSConfiguration?
            if secure {
                // SSL_CERT_FILE's bundle took ~3 ms to parse, before the first request could go.
                let tls = clients.tls ?? Self.tlsConfiguration(certificateFile: certificateFile)
                clients.tls = tls
                switch tls {
                case .success(let configuration): tlsConfiguration = configuration
                case .failure(let failure): return .failure(failure)
                }
            }
            let group = clients.eventLoopGroup()
            var configuration = HTTPClient.Configuration(
                tlsConfiguration: tlsConfiguration,
                redirectConfiguration: .disallow,  // followed by `request`: see `RedirectChain`
                timeout: .init(connect: settings.connectTimeout, read: settings.readTimeout),
                proxy: proxy.map { proxy in
                    switch proxy.kind {
                    case .http: .server(host: proxy.host, port: proxy.port, authorization: proxy.credentials.map { .basic(credentials: $0) })
                    case .socks5: .socksServer(host: proxy.host, port: proxy.port)
                    }
                }
            )
            // The task's retries decide: the pool's own would retry a refused connection or a
            // certificate error until the connect timeout, with no word of it.
            configuration.connectionPool.retryConnectionEstablishment = false
            // Connections are kept and reused across the run's downloads; how many run at once
            // is the queue's concurrency, which the pool's default of 8 a host must not cap.
            configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = Self.connectionsPerHost
            if fresh { configuration.maximumUsesPerConnection = 1 }
            let client = HTTPClient(eventLoopGroupProvider: .shared(group), configuration: configuration)
            clients.byKind[kind] = client
            return .success(client)
        }
        return try made.get()
    }

    /// Starts one HTTP attempt into `file`, resuming from its bytes when it has a validator;
    /// `completion` runs on the file's queue once the body is on disk in full, or it failed.
    /// Never call it on `file.queue` itself.
    package func fetch(
        _ url: String, headers: [(String, String)], into file: PartialFile,
        progress: @escaping @Sendable (Int64, Int64?) -> Void,
        completion: @escaping @Sendable (Result<Void, ActionFailure>) -> Void
    ) -> HTTPAttempt {
        let attempt = HTTPAttempt()
        // `sync`: the file's queue is idle when an attempt starts, so the request is made on
        // the caller's thread, in the queue's order, without waking another thread first.
        let start: @Sendable () -> Void = {
            do throws(ActionFailure) {
                try file.hashKeptBytes()
                // Without a validator a Range could splice two versions of the file: start over.
                if file.validator == nil, file.size > 0 { try file.restart() }
            } catch {
                return completion(.failure(error))
            }
            let chain = RedirectChain(original: url, headers: headers, limit: self.settings.maximumRedirects)
            self.request(url, chain: chain, into: file, attempt: attempt, progress: progress, completion: completion)
        }
        // Bytes an earlier flowrun left are read and hashed first: not on the caller's thread.
        if file.keptBytesUnhashed { file.queue.async(execute: start) } else { file.queue.sync(execute: start) }
        return attempt
    }

    /// How far an attempt has gone out of its way: each is done at most once.
    private struct Detours {
        /// A 206 did not continue the kept bytes, so the file was emptied and asked for whole.
        var restartedFromZero = false
        /// This request is the retry of one whose kept-alive connection died.
        var onFreshConnection = false
    }

    /// One request of the attempt, on the file's queue; a redirect makes the next one here,
    /// rather than in the client, so that credentials stay with their host (`RedirectChain`).
    private func request(
        _ target: String, chain: RedirectChain, into file: PartialFile, attempt: HTTPAttempt, detours: Detours = Detours(),
        progress: @escaping @Sendable (Int64, Int64?) -> Void,
        completion: @escaping @Sendable (Result<Void, ActionFailure>) -> Void
    ) {
        // Failures name the URL that failed, and the task's when a redirect led there.
        let url = target == chain.original ? target : "\(target) (redirected from \(chain.original))"
        do throws(ActionFailure) {
            guard let parsed = URL(string: target) else { throw ActionFailure("\(url): not a valid URL", retryable: false) }
            // async-http-client asks for `/` when the path's bytes are not UTF-8 (`URL.path` is
            // empty then): failing beats downloading the server's root as this file.
            if target.utf8.contains(UInt8(ascii: "%")),
                URLComponents(url: parsed, resolvingAgainstBaseURL: false)?.percentEncodedPath.removingPercentEncoding == nil
            {
                throw ActionFailure(
                    "\(url): its path's percent-encoded bytes are not UTF-8, which flowrun's HTTP client cannot request", retryable: false)
            }
            let secure = parsed.scheme?.lowercased() == "https"
            let proxy = try proxies.proxy(for: parsed)
            let request: HTTPClient.Request
            do {
                request = try HTTPTransfer.request(url: target, headers: chain.headers, resumingFrom: file)
            } catch let failure as ActionFailure {
                throw ActionFailure("\(url): \(failure.reason)", retryable: false)
            } catch {
                throw ActionFailure("\(url): \(error)", retryable: false)
            }
            let transfer = HTTPTransfer(file: file, url: url, resuming: file.size > 0, progress: progress)
            // `blocking`: called on a thread that may wait (the plain reader's), which then does
            // the file's work itself, `sync` on its idle queue running here: the end of a small
            // download wakes no other thread before the engine's (bench/README.md, s43-small).
            let ended = { @Sendable (blocking: Bool) -> @Sendable (Result<Void, any Error>) -> Void in
                { result in
                    // The last, partial block goes to the file before the outcome is looked at.
                    transfer.handOffStagedBytes(blocking: blocking)
                    let settle: @Sendable () -> Void = {
                        self.responseEnded(
                            result, target: target, parsed: parsed, url: url, chain: chain, transfer: transfer, into: file, attempt: attempt,
                            detours: detours, progress: progress, completion: completion)
                    }
                    if blocking { file.queue.sync(execute: settle) } else { file.queue.async(execute: settle) }
                }
            }
            if let proxy, proxy.kind == .http, !secure,
                let forwarded = ForwardedRequest(request, proxy: proxy, connectTimeout: settings.connectTimeout, readTimeout: settings.readTimeout)
            {
                // Plain http through an http proxy goes to it as `GET http://host/path`, as curl.
                guard attempt.started(cancel: { forwarded.cancel() }) else { throw ActionFailure("cancelled", retryable: false) }
                forwarded.start(on: eventLoopGroup(), into: transfer).whenComplete(ended(false))
            } else if proxy == nil, !secure, let plain = PlainHTTPReader.Request(request) {
                let exchange = PlainHTTPReader.Exchange()
                guard attempt.started(cancel: { exchange.cancel() }) else { throw ActionFailure("cancelled", retryable: false) }
                reader.start(plain, fresh: detours.onFreshConnection, exchange: exchange, into: transfer, on: eventLoopGroup().next(), ended: ended(true))
            } else {
                let task = try client(for: proxy, fresh: detours.onFreshConnection, secure: secure).execute(request: request, delegate: transfer)
                guard attempt.started(cancel: { task.cancel() }) else {
                    task.cancel()
                    throw ActionFailure("cancelled", retryable: false)
                }
                task.futureResult.whenComplete(ended(false))
            }
        } catch {
            completion(.failure(error))
        }
    }

    /// On the file's queue, once a request's response ended: the attempt's next request (a
    /// redirect, the whole file after a refused range, a retry on a fresh connection), or its outcome.
    private func responseEnded(
        _ result: Result<Void, any Error>, target: String, parsed: URL, url: String, chain: RedirectChain, transfer: HTTPTransfer,
        into file: PartialFile, attempt: HTTPAttempt, detours: Detours, progress: @escaping @Sendable (Int64, Int64?) -> Void,
        completion: @escaping @Sendable (Result<Void, ActionFailure>) -> Void
    ) {
        func again(_ target: String, _ chain: RedirectChain, _ detours: Detours) {
            request(target, chain: chain, into: file, attempt: attempt, detours: detours, progress: progress, completion: completion)
        }
        switch result {
        case .failure(let redirect as HTTPTransfer.Redirect):
            switch chain.following(redirect.location, from: parsed) {
            case .success(let (next, nextChain)): again(next, nextChain, Detours(restartedFromZero: detours.restartedFromZero))
            case .failure(let failure): completion(.failure(failure))
            }
        case .failure(let refused as HTTPTransfer.RangeRefused):
            // Once: a server that never continues a file fails rather than loops.
            guard !detours.restartedFromZero else {
                return completion(.failure(ActionFailure("\(url): \(refused.problem)", retryable: true)))
            }
            again(chain.original, chain.restarted(), Detours(restartedFromZero: true))
        case .failure(let error)
        where !detours.onFreshConnection && !transfer.receivedHead && !attempt.isCancelled && Self.connectionDied(error):
            // As curl: the server closed a kept-alive connection as the request went
            // out, which is no fault of the file's; whatever the task's retries.
            again(target, chain, Detours(restartedFromZero: detours.restartedFromZero, onFreshConnection: true))
        default:
            completion(Self.outcome(result, transfer: transfer, file: file, url: url))
        }
    }

    /// The ways a connection fails when the server closed it before answering.
    static func connectionDied(_ error: any Error) -> Bool {
        if let error = error as? HTTPClientError { return error == .remoteConnectionClosed }
        if let error = error as? IOError { return error.errnoCode == ECONNRESET || error.errnoCode == EPIPE }
        if let error = error as? ChannelError { return error == .ioOnClosedChannel || error == .eof }
        return false
    }

    private static func outcome(
        _ result: Result<Void, any Error>, transfer: HTTPTransfer, file: PartialFile, url: String
    ) -> Result<Void, ActionFailure> {
        if let failure = transfer.writeFailure { return .failure(failure) }
        // Every byte taken on disk: for the check below, and for a later attempt's resume.
        do throws(ActionFailure) {
            try file.settle()
        } catch {
            return .failure(error)
        }
        switch result {
        case .success:
            if let total = transfer.totalLength, total != file.size {
                return .failure(ActionFailure("\(url): the body ended after \(file.size) of \(total.counted("byte"))", retryable: true))
            }
            return .success(())
        case .failure(let error as ActionFailure):
            return .failure(error)
        case .failure(let error) where transfer.receivedHead && cutBody(error):
            // As curl's "transfer closed with N bytes remaining to read", where the client
            // said "stream ended at an unexpected time".
            guard let total = transfer.totalLength else {
                return .failure(ActionFailure("\(url): the connection closed before the body's end, after \(file.size.counted("byte"))", retryable: true))
            }
            return .failure(ActionFailure("\(url): the connection closed after \(file.size) of \(total.counted("byte"))", retryable: true))
        case .failure(let error):
            return .failure(failure(of: error, url: url))
        }
    }

    /// A body the connection's close broke off: before its Content-Length, or its last chunk.
    static func cutBody(_ error: any Error) -> Bool {
        (error as? HTTPParserError) == .invalidEOFState || (error as? HTTPClientError) == .remoteConnectionClosed
    }

    /// Bad URLs and certificate errors fail at once (as curl, which
    /// does not retry them); connection errors, timeouts and early ends are retried.
    static func failure(of error: any Error, url: String) -> ActionFailure {
        if let error = error as? HTTPClientError {
            switch error {
            case .invalidURL, .emptyHost, .emptyScheme, .cancelled: return ActionFailure("\(url): \(error)", retryable: false)
            case .readTimeout: return ActionFailure("\(url): timed out waiting for data", retryable: true)
            case .connectTimeout: return ActionFailure("\(url): timed out connecting", retryable: true)
            case .remoteConnectionClosed: return ActionFailure("\(url): the server closed the connection early", retryable: true)
            default:
                let unsupported = "\(error)".contains("unsupportedScheme")
                return ActionFailure("\(url): \(error)", retryable: !unsupported)
            }
        }
        if let error = error as? IOError {
            return ActionFailure("\(url): \(String(cString: strerror(error.errnoCode)))", retryable: true)
        }
        if let error = error as? NIOConnectionError, let unknown = (error.dnsAError ?? error.dnsAAAAError) as? SocketAddressError.UnknownHost {
            // In the words of `PlainHTTPReader`'s lookup (https and proxies come here).
            return failure(of: HostResolver.Unresolved(host: unknown.host, problem: unknown.errorDescription), url: url)
        }
        if let error = error as? NIOConnectionError, let first = error.connectionErrors.first {
            return failure(of: first.error, url: url)
        }
        if let error = error as? HTTPParserError {
            return ActionFailure("\(url): not a valid HTTP/1.1 response (\(error))", retryable: true)
        }
        if error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError {
            return ActionFailure("\(url): TLS: \(error)", retryable: false)
        }
        return ActionFailure("\(url): \(error)", retryable: true)
    }
}

/// One running HTTP request (async-http-client's task, a `ForwardedRequest` or a `PlainHTTPReader` exchange), which `cancel()` stops (and which the caller then cleans up after).
package final class HTTPAttempt: Sendable {
    private enum State { case starting, running(cancel: @Sendable () -> Void), cancelled }
    private let state = NIOLockedValueBox(State.starting)

    /// False when cancelled before the request (the first, or one a redirect made) began.
    fileprivate func started(cancel: @escaping @Sendable () -> Void) -> Bool {
        state.withLockedValue { state in
            if case .cancelled = state { return false }
            state = .running(cancel: cancel)
            return true
        }
    }

    package var isCancelled: Bool {
        state.withLockedValue { if case .cancelled = $0 { true } else { false } }
    }

    package func cancel() {
        let cancel: (@Sendable () -> Void)? = state.withLockedValue { state in
            defer { state = .cancelled }
            if case .running(let cancel) = state { return cancel }
            return nil
        }
        cancel?()
    }
}
