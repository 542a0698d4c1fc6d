import FlowModel
import Foundation

/// The `user:password@` of a URL as curl sends it: Basic credentials over the percent-decoded
/// bytes of `user:password`, to the host (Authorization) or to the proxy (Proxy-Authorization).
/// async-http-client drops a URL's userinfo without a word, so they never reached the server.
enum URLCredentials {
    /// `user:password` percent-decoded and base64-encoded, or nil when the URL names no user.
    static func basic(of url: String) -> String? {
        guard let parts = URLComponents(string: url), let user = parts.percentEncodedUser else { return nil }
        return Data(PercentEncoding.decoded(user + ":" + (parts.percentEncodedPassword ?? ""))).base64EncodedString()
    }

    /// The Authorization header for a download's URL, or nil when it names no user.
    static func basicAuthorization(of url: String) -> String? {
        basic(of: url).map { "Basic " + $0 }
    }
}
