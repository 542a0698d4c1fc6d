import Glibc
import NIOCore

/// How `PlainHTTPReader` finds a host name's addresses: `getaddrinfo` (`system`), or in a test
/// one that holds the lookup until released. A lookup cannot be interrupted, so the reader runs
/// it on its worker thread and lets a stop or the connect timeout end the request without it.
package struct HostResolver: Sendable {
    /// The host's addresses, in the order to try them; `Unresolved` when there are none.
    let addresses: @Sendable (_ host: String, _ port: Int) throws -> [SocketAddress]

    package init(_ addresses: @escaping @Sendable (_ host: String, _ port: Int) throws -> [SocketAddress]) {
        self.addresses = addresses
    }

    /// A host name that does not resolve, with the resolver's reason (curl: "Could not resolve
    /// host").
    package struct Unresolved: Error, CustomStringConvertible {
        package var host: String
        package var problem: String

        package init(host: String, problem: String) {
            self.host = host
            self.problem = problem
        }

        package var description: String { "could not resolve host \(host) (\(problem))" }
    }

    /// `getaddrinfo`'s addresses in its order (RFC 6724's, with /etc/gai.conf), as
    /// async-http-client's resolver asks for them: stream sockets, any family.
    package static let system = HostResolver { host, port in
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, String(port), &hints, &list)
        guard code == 0 else {
            let problem = code == EAI_SYSTEM ? String(cString: strerror(errno)) : String(cString: gai_strerror(code))
            throw Unresolved(host: host, problem: problem)
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var entry = list
        while let current = entry?.pointee {
            entry = current.ai_next
            guard let address = current.ai_addr else { continue }
            switch current.ai_family {
            case AF_INET: address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { addresses.append(SocketAddress($0.pointee, host: host)) }
            case AF_INET6: address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { addresses.append(SocketAddress($0.pointee, host: host)) }
            default: continue
            }
        }
        guard !addresses.isEmpty else { throw Unresolved(host: host, problem: "no IPv4 or IPv6 address") }
        return addresses
    }
}
