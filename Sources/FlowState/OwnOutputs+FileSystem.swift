import FlowFiles

extension OwnOutputs {
    /// The test of an input pattern's matches, with the output globs expanded on `fileSystem`.
    func matcher(fileSystem: any FileSystem) -> Matcher {
        matcher(expanding: fileSystem.files(matching:))
    }
}
