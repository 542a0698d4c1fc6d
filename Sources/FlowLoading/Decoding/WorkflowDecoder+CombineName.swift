import FlowModel

extension WorkflowDecoder {
    /// Warns when `combine` concatenates (`format` not written) into a file named as an archive
    /// or a PNG (`to: out.tar.gz`): the run is green and the file is no archive. A warning, not
    /// an error: concatenating gzip members into one `.gz` is done on purpose.
    mutating func warnIfNamedAsOtherFormat(_ to: Located<String>, _ field: @autoclosure () -> String) {
        guard let (looksLike, written) = Self.formatNamed(by: to.value) else { return }
        report(Diagnostic(.combineNamedAsOtherFormat(to.value, looksLike: looksLike, format: written, field: field()), at: to.location, severity: .warning))
    }

    /// Warns when a written `format` makes another kind of file than `to`'s name says
    /// (`format: tar` into `out.tar.gz`, which `tar -xzf` then refuses; `format: image` into
    /// `out.jpg`, a PNG named as a JPEG). A warning, as above: the name may be meant.
    mutating func warnIfNamedAsOtherFormat(_ to: Located<String>, written: CombineFormat, _ field: @autoclosure () -> String) {
        guard written != .concat, let (looksLike, wanted) = Self.formatNamed(by: to.value) ?? Self.otherImageNamed(by: to.value),
            wanted != written
        else { return }
        report(
            Diagnostic(
                .combineFormatContradictsName(looksLike: looksLike, written: written, wanted: wanted, field: field()), at: to.location,
                severity: .warning))
    }

    /// Image names combine does not write (it writes PNG only), for a written `format: image`.
    static func otherImageNamed(by path: String) -> (looksLike: String, format: CombineFormat?)? {
        let name = path.split(separator: "/").last.map { $0.lowercased() } ?? ""
        let kinds = [(".jpg", "a JPEG image"), (".jpeg", "a JPEG image"), (".gif", "a GIF image"), (".webp", "a WebP image")]
        return kinds.first { name.hasSuffix($0.0) && name.count > $0.0.count }.map { ($0.1, nil) }
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
    static func combineFormatContradictsName(looksLike: String, written: CombineFormat, wanted: CombineFormat?, field: String) -> Self {
        let makes = [CombineFormat.tar: "a tar archive", .tarGz: "a gzip-compressed tar archive", .zip: "a zip archive", .image: "a PNG image"]
        let ask =
            wanted.map { "write 'format: \($0.rawValue)' to make one, or name 'to' for the format" }
            ?? "name 'to' for the format (combine makes tar, tar.gz and zip archives and PNG images)"
        return Self(
            "'to' of \(field) is named like \(looksLike), but 'format: \(written.rawValue)' writes \(makes[written] ?? "another file") into it", hint: ask)
    }

    static func combineNamedAsOtherFormat(_ to: String, looksLike: String, format: CombineFormat?, field: String) -> Self {
        let ask =
            format.map { "write 'format: \($0.rawValue)' to make one, or 'format: concat' to join the bytes as they are" }
            ?? "combine makes tar, tar.gz and zip archives ('format: tar', 'tar.gz' or 'zip'); write 'format: concat' to join the bytes as they are"
        return Self("'to' of \(field) is named like \(looksLike), but the default format concat joins the inputs' bytes into it", hint: ask)
    }
}
