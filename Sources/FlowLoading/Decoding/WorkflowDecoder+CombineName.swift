import FlowModel

extension WorkflowDecoder {
    /// Warns when `combine` concatenates (`format` not written) into a file named as an archive
    /// or a PNG (`to: out.tar.gz`): the run is green and the file is no archive. A warning, not
    /// an error: concatenating gzip members into one `.gz` is done on purpose.
    mutating func warnIfNamedAsOtherFormat(_ to: Located<String>, _ field: @autoclosure () -> String) {
        guard let (looksLike, written) = Self.formatNamed(by: to.value) else { return }
        report(Diagnostic(.combineNamedAsOtherFormat(to.value, looksLike: looksLike, format: written, field: field()), at: to.location, severity: .warning))
    }

    /// What the name's extension says the file is, and the `format` that makes it (nil: none does).
    static func formatNamed(by path: String) -> (looksLike: String, format: CombineFormat?)? {
        let name = path.split(separator: "/").last.map { $0.lowercased() } ?? ""
        let kinds: [(suffixes: [String], looksLike: String, format: CombineFormat?)] = [
            ([".tar.gz", ".tgz"], "a gzip-compressed tar archive", .tarGz),
            ([".tar"], "a tar archive", .tar),
            ([".zip"], "a zip archive", .zip),
            ([".png"], "a PNG image", .image),
            ([".tar.xz", ".txz", ".tar.bz2", ".tbz2", ".tbz", ".tar.zst", ".tzst"], "a compressed tar archive", nil),
        ]
        for kind in kinds where kind.suffixes.contains(where: { name.hasSuffix($0) && name.count > $0.count }) {
            return (kind.looksLike, kind.format)
        }
        return nil
    }
}

extension Diagnostic.Message {
    static func combineNamedAsOtherFormat(_ to: String, looksLike: String, format: CombineFormat?, field: String) -> Self {
        let ask =
            format.map { "write 'format: \($0.rawValue)' to make one, or 'format: concat' to join the bytes as they are" }
            ?? "combine makes tar, tar.gz and zip archives ('format: tar', 'tar.gz' or 'zip'); write 'format: concat' to join the bytes as they are"
        return Self("'to' of \(field) is named like \(looksLike), but the default format concat joins the inputs' bytes into it", hint: ask)
    }
}
