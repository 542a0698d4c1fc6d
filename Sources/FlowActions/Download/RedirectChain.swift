import Foundation

/// The redirects one attempt followed: at most `limit`, never the same URL twice, and, as curl
/// does, Authorization and Cookie headers sent only to the scheme, host and port the task
/// named: a redirect elsewhere does not receive them.
struct RedirectChain: Sendable {
    let original: String
    private(set) var headers: [(String, String)]
    private let taskHeaders: [(String, String)]
    private let limit: Int
    private var visited: [String]
    private var credentialsDropped = false

    init(original: String, headers: [(String, String)], limit: Int) {
        self.original = original
        var headers = headers
        // As curl: a task's own Authorization header wins over the URL's `user:password@`.
        if !headers.contains(where: { $0.0.lowercased() == "authorization" }), let basic = URLCredentials.basicAuthorization(of: original) {
            headers.append(("Authorization", basic))
        }
        self.headers = headers
        taskHeaders = headers
        self.limit = limit
        visited = [original]
    }

    /// The chain anew from the task's URL: for an attempt that starts over.
    func restarted() -> RedirectChain {
        RedirectChain(original: original, headers: taskHeaders, limit: limit)
    }

    private static let credentials: Set<String> = ["authorization", "cookie", "proxy-authorization"]

    /// The next URL to request and the chain after it, or why the attempt fails.
    func following(_ location: String, from current: URL) -> Result<(String, RedirectChain), ActionFailure> {
        guard let resolved = URL(string: location, relativeTo: current)?.absoluteURL,
            let next = Self.withoutDotSegments(resolved), let scheme = next.scheme?.lowercased(), scheme == "http" || scheme == "https", next.host != nil
        else {
            return .failure(ActionFailure("\(original): redirect to an unsupported URL '\(location)'", retryable: false))
        }
        let target = next.absoluteString
        if visited.contains(target) { return .failure(ActionFailure("\(original): redirect loop", retryable: false)) }
        if visited.count > limit { return .failure(ActionFailure("\(original): more than \(limit) redirects", retryable: false)) }
        var chain = self
        chain.visited.append(target)
        if !chain.credentialsDropped, let first = URL(string: original), !Self.sameOrigin(first, next) {
            chain.headers.removeAll { Self.credentials.contains($0.0.lowercased()) }
            chain.credentialsDropped = true
        }
        return .success((target, chain))
    }

    /// As curl: Foundation resolves a relative Location's `..`, but keeps an absolute one's.
    static func withoutDotSegments(_ url: URL) -> URL? {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        parts.percentEncodedPath = DotSegments.removed(from: parts.percentEncodedPath)
        return parts.url
    }

    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func port(_ url: URL) -> Int { url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80) }
        return a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased() && port(a) == port(b)
    }
}
