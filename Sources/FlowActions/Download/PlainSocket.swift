import AsyncHTTPClient
import Glibc
import NIOCore

/// One TCP connection of `PlainHTTPReader`, in blocking mode: reads fail with async-http-client's
/// `readTimeout` after the read timeout without a byte (`SO_RCVTIMEO`), and `shutdown()` from
/// another thread wakes a blocked read (`HTTPAttempt.cancel`).
final class PlainSocket: @unchecked Sendable {
    // Unchecked Sendable: `descriptor` is used by the one thread whose request holds the socket;
    // another thread only calls `shutdown()`, which the holder's lock keeps before `close()`.
    let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Told a socket's descriptor once its SYN is out and its connect waits for the answer: a
    /// test's stop goes then (`Downloader.Settings.connectWaits`).
    typealias ConnectWaits = @Sendable (_ descriptor: Int32) -> Void

    /// Connects to the first of `addresses` that answers by `deadline`, with the errors
    /// async-http-client gives: `connectTimeout`, or the `IOError` of the last address tried.
    /// The socket is held by `exchange` while its connect waits, so that a cancel wakes it.
    static func connect(
        to addresses: [SocketAddress], until deadline: NIODeadline, readTimeout: TimeAmount, for exchange: PlainHTTPReader.Exchange,
        waits: ConnectWaits?
    ) throws -> PlainSocket {
        var failure: any Error = HTTPClientError.connectTimeout
        for address in addresses {
            do {
                let socket = try connect(to: address, until: deadline, for: exchange, waits: waits)
                socket.setTimeout(SO_RCVTIMEO, readTimeout)
                socket.setTimeout(SO_SNDTIMEO, readTimeout)
                var one: Int32 = 1
                setsockopt(socket.descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                return socket
            } catch {
                failure = error
                if let error = error as? HTTPClientError, error == .connectTimeout || error == .cancelled { break }
            }
        }
        throw failure
    }

    private static func connect(
        to address: SocketAddress, until deadline: NIODeadline, for exchange: PlainHTTPReader.Exchange, waits: ConnectWaits?
    ) throws
        -> PlainSocket
    {
        let descriptor = Glibc.socket(
            Int32(address.protocol.rawValue), Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw IOError(errnoCode: errno, reason: "socket") }
        let socket = PlainSocket(descriptor: descriptor)
        let failed = address.withSockAddr { Glibc.connect(descriptor, $0, socklen_t($1)) == 0 ? 0 : errno }
        // Held once its SYN is out: a cancel before then would shut down a socket not yet
        // connecting, which does not stop the connect that follows (its poll then says
        // POLLHUP at once, with SO_ERROR 0); after it, `shutdown()` ends the SYN_SENT and wakes
        // the poll.
        guard exchange.hold(socket) else {
            socket.close()
            throw HTTPClientError.cancelled
        }
        do {
            if failed != 0 {
                guard failed == EINPROGRESS else { throw IOError(errnoCode: failed, reason: "connect") }
                waits?(descriptor)
                var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                while true {
                    let left = (deadline - .now()).nanoseconds / 1_000_000
                    let polled = poll(&ready, 1, Int32(clamping: max(0, left)))
                    if polled < 0, errno == EINTR { continue }
                    guard polled > 0 else { throw HTTPClientError.connectTimeout }
                    break
                }
                if exchange.isCancelled { throw HTTPClientError.cancelled }
                var code: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &code, &length)
                guard code == 0 else { throw IOError(errnoCode: code, reason: "connect") }
            }
            // Blocking from here on: a read waits in the kernel, woken by data, the timeout or
            // `shutdown()`, with no poll before each.
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
            return socket
        } catch {
            exchange.release()
            socket.close()
            throw error
        }
    }

    private func setTimeout(_ option: Int32, _ amount: TimeAmount) {
        let nanoseconds = max(amount.nanoseconds, 1000)
        var value = timeval(tv_sec: Int(nanoseconds / 1_000_000_000), tv_usec: Int(nanoseconds % 1_000_000_000 / 1000))
        setsockopt(descriptor, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Sends all of `bytes`; a connection the server closed fails with its `IOError` (EPIPE,
    /// ECONNRESET), which `Downloader.connectionDied` knows.
    func send(_ bytes: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < bytes.count {
            let sent = Glibc.send(descriptor, bytes.baseAddress! + done, bytes.count - done, Int32(MSG_NOSIGNAL))
            if sent < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { throw HTTPClientError.readTimeout }
                throw IOError(errnoCode: errno, reason: "send")
            }
            done += sent
        }
    }

    /// Reads into `space`: how many bytes came, 0 at the connection's end.
    func read(into space: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let count = Glibc.read(descriptor, space.baseAddress, space.count)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { throw HTTPClientError.readTimeout }
            throw IOError(errnoCode: errno, reason: "read")
        }
    }

    /// Whether a kept-alive connection is unfit for another request: the server closed it, or
    /// sent bytes no request asked for.
    var isStale: Bool {
        var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&ready, 1, 0) != 0
    }

    func shutdown() {
        _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
    }

    func close() {
        _ = Glibc.close(descriptor)
    }
}
