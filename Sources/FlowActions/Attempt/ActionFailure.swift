import FlowEngine

/// Why an attempt of a download, decompress or combine task did not produce its output, in
/// words that name the URL, the path or the entry, and whether another attempt can help.
///
/// The one failure type of the actions: each throws it, and `ActionAttempt` turns it into the
/// attempt's result, whose reason `ActionRunner` masks (`SecretMask`), in one place for every kind.
package struct ActionFailure: Error, Sendable, Equatable, CustomStringConvertible {
    package var reason: String
    /// False when the failure knows that trying again cannot help (an HTTP 404, a bad checksum,
    /// too many redirects, as curl's `--retry`); true leaves it to the task's `retries`.
    package var retryable: Bool
    /// A server's Retry-After, in milliseconds from when it was read.
    package var retryAfterMilliseconds: Int64?
    /// The reason to give instead when no attempt follows, for a reason that tells what the next
    /// attempt will do (`starting over`): that would be false after the last one.
    package var reasonOnLastAttempt: String?

    package init(_ reason: String, retryable: Bool = true, retryAfterMilliseconds: Int64? = nil) {
        self.reason = reason
        self.retryable = retryable
        self.retryAfterMilliseconds = retryAfterMilliseconds
    }

    package var description: String { reason }

    /// The attempt was stopped (`StopFlag`): cancel, a timeout or Ctrl-C. The engine reports
    /// such an attempt by why it stopped it, not by this reason.
    package static let cancelled = ActionFailure("cancelled", retryable: false)
}

extension ActionFailure {
    /// The attempt's result. A failure that advises nothing beyond the task's policy is a plain one.
    var result: AttemptResult {
        if retryable && retryAfterMilliseconds == nil { return .failed(reason: reason, exitCode: nil) }
        return .failedAdvising(reason: reason, retryable: retryable, notBeforeMilliseconds: retryAfterMilliseconds)
    }
}
