import Foundation

/// Which proxy a URL goes through, from the environment as curl reads it (curl(1), ENVIRONMENT):
/// `http_proxy`, `https_proxy` or `HTTPS_PROXY`, then `all_proxy` or `ALL_PROXY`; `no_proxy` or
/// `NO_PROXY` lists hosts that go direct. Issue 13 also names `HTTP_PROXY`, which curl ignores
/// because a CGI server sets it from a request's `Proxy:` header: it is read where `http_proxy`
/// is not set, except under CGI (`REQUEST_METHOD` set), as Go's net/http does.
package struct ProxyRules: Sendable, Equatable {
    package struct Proxy: Hashable, Sendable {
        package enum Kind: Hashable, Sendable { case http, socks5 }
        package var kind: Kind
        package var host: String
        package var port: Int
        /// Basic credentials from the setting's `user:password@`, base64 (percent-decoded first).
        package var credentials: String? = nil
    }

    var httpProxy: String?
    var httpsProxy: String?
    var noProxy: [String]

    package init(environment: [String: String]) {
        func value(_ names: String...) -> String? {
            names.lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        }
        let all = value("all_proxy", "ALL_PROXY")
        let upperCaseHTTP = environment["REQUEST_METHOD"] == nil ? value("HTTP_PROXY") : nil
        httpProxy = value("http_proxy") ?? upperCaseHTTP ?? all
        httpsProxy = value("https_proxy", "HTTPS_PROXY") ?? all
        noProxy = (value("no_proxy", "NO_PROXY") ?? "")
            .split(whereSeparator: { $0 == "," || $0 == " " })
            .map { String($0).lowercased() }
    }

    /// The proxy for `url`, nil to go direct; an error names the variable's unusable value.
    package func proxy(for url: URL) throws(ActionFailure) -> Proxy? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        guard let setting = scheme == "https" ? httpsProxy : scheme == "http" ? httpProxy : nil else { return nil }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        if bypasses(host: host, port: port) { return nil }
        return try Self.parse(setting)
    }

    /// curl's rules: `*` alone matches every host; a name matches itself and its subdomains
    /// (a leading dot is optional); an IP address matches itself, or its block with `/bits`
    /// (never a name's suffix rule: `0.0.1` is not `127.0.0.1`);
    /// `:port` after an entry limits it to that port. As curl, one trailing dot (the DNS root)
    /// is dropped from the host, and from an entry matched as a name.
    func bypasses(host: String, port: Int) -> Bool {
        var bareHost = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        if bareHost.hasSuffix(".") { bareHost.removeLast() }
        // An address is matched as an address (itself or its block), never as a name's suffix:
        // curl sends 127.0.0.1 through the proxy under `no_proxy=0.0.1`.
        let address = IPBlock.bytes(of: bareHost)
        for rawEntry in noProxy {
            if rawEntry == "*" { return true }
            var entry = rawEntry
            if let colon = entry.lastIndex(of: ":"), !entry.hasSuffix("]"), entry.filter({ $0 == ":" }).count == 1 {
                guard Int(entry[entry.index(after: colon)...]) == port else { continue }
                entry = String(entry[..<colon])
            }
            entry = entry.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            if entry.contains("/"), IPBlock(entry)?.contains(bareHost) == true { return true }
            if let address {
                if IPBlock.bytes(of: entry) == address { return true }
                continue
            }
            if entry.hasPrefix(".") { entry.removeFirst() }
            if entry.hasSuffix(".") { entry.removeLast() }
            if entry.isEmpty { continue }
            if bareHost == entry || bareHost.hasSuffix("." + entry) { return true }
        }
        return false
    }

    /// `[scheme://][user:password@]host[:port]`; curl's default port is 1080.
    static func parse(_ setting: String) throws(ActionFailure) -> Proxy {
        let text = setting.contains("://") ? setting : "http://" + setting
        guard let url = URL(string: text), let host = url.host, !host.isEmpty else {
            throw ActionFailure("cannot use proxy \(shown(setting)): not a URL", retryable: false)
        }
        let kind: Proxy.Kind
        switch url.scheme?.lowercased() {
        case "http": kind = .http
        case "socks5", "socks5h": kind = .socks5
        default: throw ActionFailure("cannot use proxy \(shown(setting)): only http:// and socks5:// proxies are supported", retryable: false)
        }
        let bareHost = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        // As curl: the proxy's `user:password@` goes to it as Proxy-Authorization.
        return Proxy(kind: kind, host: bareHost, port: url.port ?? 1080, credentials: URLCredentials.basic(of: text))
    }

    /// The setting as a failure names it, its password as `***`: it came from the environment,
    /// not the workflow file, and a failure goes to the console, the run record and JUnit. Up
    /// to the last `@`, which a password typed without `%40` may also hold.
    static func shown(_ setting: String) -> String {
        let start = setting.range(of: "://")?.upperBound ?? setting.startIndex
        guard let at = setting[start...].lastIndex(of: "@"), let colon = setting[start..<at].firstIndex(of: ":") else { return setting }
        return String(setting[...colon]) + "***" + String(setting[at...])
    }
}

/// An IPv4 or IPv6 address block written `address/bits`.
struct IPBlock {
    private var network: [UInt8]
    private var bits: Int

    init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1)
        guard parts.count == 2, let bits = Int(parts[1]), let network = Self.bytes(of: String(parts[0])),
            (0...network.count * 8).contains(bits)
        else { return nil }
        self.network = network
        self.bits = bits
    }

    func contains(_ host: String) -> Bool {
        guard let address = Self.bytes(of: host), address.count == network.count else { return false }
        for bit in 0..<bits where (address[bit / 8] ^ network[bit / 8]) & (0x80 >> UInt8(bit % 8)) != 0 {
            return false
        }
        return true
    }

    static func bytes(of text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}
