/// A file that loading a workflow read or looked for (the workflow, an included file, a dotenv
/// file), with the bytes it read: what a plan made from the workflow depends on, for the
/// compiled-plan cache to check.
package struct SourceFile: Sendable {
    /// Absolute.
    package var path: String
    /// The bytes read; nil for a file that was not there (an optional `?path` dotenv file).
    package var contents: [UInt8]?

    package init(path: String, contents: [UInt8]?) {
        self.path = path
        self.contents = contents
    }
}
