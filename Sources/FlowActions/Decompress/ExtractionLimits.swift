/// Ceilings against archive bombs: a real archive does not reach them, a bomb stops early.
///
/// The ratio ceiling applies only once `ratioGrace` data bytes were written, so that a small,
/// very compressible file (a 400:1 log) extracts; a zip of a GiB of zeros stops near 100 MB.
package struct ExtractionLimits: Sendable, Equatable {
    /// Entries (files, folders, links) at most.
    package var maxFiles: Int = 1_000_000
    /// Data bytes written at most (sparse holes do not count).
    package var maxBytes = 64 << 30
    /// Data bytes written per compressed byte read, at most, once `ratioGrace` bytes were written.
    package var maxRatio = 200
    package var ratioGrace = 100 << 20

    package init() {}

    package init(maxFiles: Int?, maxBytes: Int?, maxRatio: Int?) {
        if let maxFiles { self.maxFiles = maxFiles }
        if let maxBytes { self.maxBytes = maxBytes }
        if let maxRatio { self.maxRatio = maxRatio }
    }
}
