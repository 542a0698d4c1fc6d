/// The rules for a combine archive's `prefix`, checked where the file is read and again once
/// variables are expanded: what `git archive --prefix` takes, without its ways out of the folder.
package enum EntryPrefix {
    /// What is wrong with `prefix`, or nil if an archive can take it.
    package static func problem(_ prefix: String) -> String? {
        if prefix.isAbsolutePath { return "an entry name must be relative" }
        // By bytes: split by Characters, `../\u{301}x` was one part, no `..`, and its entries
        // landed beside the folder.
        let parts = prefix.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        if parts.contains(where: { $0.elementsEqual("..".utf8) }) {
            return "'..' would put entries outside the folder the archive extracts to"
        }
        if prefix.utf8.contains(0) { return "an entry name cannot hold a NUL character" }
        return nil
    }
}
