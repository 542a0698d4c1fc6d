/// How one download attempt ended.
package enum DownloadOutcome: Sendable, Equatable {
    /// The file is at its destination; `sha256` is its digest in lowercase hex.
    case completed(sha256: String, bytes: Int64)
    case failed(ActionFailure)
    /// Stopped by `cancel()`: nothing at the destination, no temporary file.
    case cancelled
}
