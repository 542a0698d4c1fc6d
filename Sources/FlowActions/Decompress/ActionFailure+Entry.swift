extension ActionFailure {
    /// A problem with one entry of an archive, named as the archive has it.
    static func entry(_ name: String, _ problem: String) -> Self {
        Self("entry '\(name)' \(problem)")
    }
}
