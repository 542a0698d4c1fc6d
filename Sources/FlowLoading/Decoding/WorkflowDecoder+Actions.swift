import FlowModel

extension WorkflowDecoder {
    /// The task's one action; nil (reported) if it is malformed.
    mutating func action(_ entry: MappingEntry, task: TaskID) -> Action? {
        let key = entry.key  // the name captures the key alone: a whole entry would be copied along
        func field() -> String { "'\(key)' of task '\(task)'" }
        switch entry.key {
        case "shell": return shell(entry.value, field()).map(Action.shell)
        case "download": return download(entry.value, field()).map(Action.download)
        case "decompress": return decompress(entry.value, field()).map(Action.decompress)
        default: return combine(entry.value, field()).map(Action.combine)
        }
    }

    private mutating func shell(_ node: Node, _ field: @autoclosure () -> String) -> ShellAction? {
        if case .sequence = node.content {
            guard let argv = strings(node, field(), allowSingle: false) else { return nil }
            guard !argv.isEmpty else {
                if Self.isEmptyList(node) { report(.empty(field()), at: node) }
                return nil
            }
            warnIfShellText(argv, field())
            return .argv(argv.map(\.value))
        }
        guard node.scalar != nil, node.scalarKind != .null else {
            report(.wrongType(field(), expected: "a script or a list of arguments", found: node.kindDescription), at: node)
            return nil
        }
        return nonEmptyString(node, field()).map { .script($0.value) }
    }

    /// Reads the mapping of an action: its entries by key, after reporting unknown and missing keys.
    private mutating func actionFields(_ node: Node, _ field: @autoclosure () -> String, allowed: Set<String>, required: [String]) -> ActionFields? {
        guard let entries = entries(node, field()) else { return nil }
        rejectUnknownKeys(entries, allowed: allowed, in: field())
        requireKeys(required, in: entries, of: node, context: field())
        var fields = ActionFields()
        for entry in entries where allowed.contains(entry.key) { fields.entries[entry.key] = entry }
        return fields
    }

    /// An action's known keys, by name.
    private struct ActionFields {
        var entries: [String: MappingEntry] = [:]
        subscript(key: String) -> Node? { entries[key]?.value }
    }

    private mutating func download(_ node: Node, _ field: @autoclosure () -> String) -> DownloadAction? {
        guard let fields = actionFields(node, field(), allowed: ["url", "to", "sha256", "headers"], required: ["url", "to"])
        else { return nil }
        let url = fields["url"].flatMap { nonEmptyString($0, "'url' of \(field())") }
        let to = fields["to"].flatMap { nonEmptyString($0, "'to' of \(field())") }
        var sha256: String?
        if let node = fields["sha256"], let text = string(node, "'sha256' of \(field())") {
            if text.utf8.count == 64, text.allSatisfy(\.isHexDigit) {
                sha256 = text.lowercased()
            } else {
                report(.invalidSHA256(text), at: node)
            }
        }
        var headers: [DownloadAction.Header] = []
        if let node = fields["headers"], let entries = entries(node, "'headers' of \(field())") {
            for entry in entries {
                if let value = locatedString(entry.value, "header '\(entry.key)'") {
                    headers.append(.init(name: entry.key, value: value))
                }
            }
        }
        guard let url, let to else { return nil }
        return DownloadAction(url: url, to: to, sha256: sha256, headers: headers)
    }

    private mutating func decompress(_ node: Node, _ field: @autoclosure () -> String) -> DecompressAction? {
        let allowed: Set = ["from", "to", "format", "strip_components", "max_files", "max_bytes", "max_ratio"]
        guard let fields = actionFields(node, field(), allowed: allowed, required: ["from", "to"]) else { return nil }
        let from = fields["from"].flatMap { nonEmptyString($0, "'from' of \(field())") }
        let to = fields["to"].flatMap { nonEmptyString($0, "'to' of \(field())") }
        let format: ArchiveFormat? = fields["format"].flatMap { choice($0, "'format' of \(field())") }
        let strip = fields["strip_components"].flatMap { int($0, "'strip_components' of \(field())", minimum: 0) }
        let maxFiles = fields["max_files"].flatMap { int($0, "'max_files' of \(field())", minimum: 1) }
        let maxBytes = fields["max_bytes"].flatMap { int($0, "'max_bytes' of \(field())", minimum: 1) }
        let maxRatio = fields["max_ratio"].flatMap { int($0, "'max_ratio' of \(field())", minimum: 1) }
        guard let from, let to else { return nil }
        return DecompressAction(
            from: from, to: to, format: format, stripComponents: strip ?? 0, maxFiles: maxFiles, maxBytes: maxBytes, maxRatio: maxRatio
        )
    }

    static let imageKeys = ["layout", "columns", "size", "background"]
    static let archiveKeys = ["base", "prefix"]

    private mutating func combine(_ node: Node, _ field: @autoclosure () -> String) -> CombineAction? {
        let allowed = Set(["inputs", "to", "format"] + Self.imageKeys + Self.archiveKeys)
        guard let fields = actionFields(node, field(), allowed: allowed, required: ["inputs", "to"]) else { return nil }
        var inputs = fields["inputs"].flatMap { strings($0, "'inputs' of \(field())", allowSingle: false) }
        if let list = inputs, list.isEmpty, let node = fields["inputs"] {
            if Self.isEmptyList(node) { report(.empty("'inputs' of \(field())"), at: node) }
            inputs = nil
        }
        let to = fields["to"].flatMap { nonEmptyString($0, "'to' of \(field())") }
        let written: CombineFormat? = fields["format"].flatMap { choice($0, "'format' of \(field())") }
        let format = written ?? .concat
        var image = CombineAction.ImageOptions()
        var layoutKnown = true  // false after an invalid layout, which is reported already
        if let node = fields["layout"] {
            if let layout: ImageLayout = choice(node, "'layout' of \(field())") { image.layout = layout } else { layoutKnown = false }
        }
        if let node = fields["columns"] { image.columns = int(node, "'columns' of \(field())", minimum: 1) }
        if let node = fields["size"], let text = string(node, "'size' of \(field())") {
            image.cellSize = Self.cellSize(text)
            if image.cellSize == nil { report(.invalidCellSize(text), at: node) }
        }
        if let node = fields["background"], let text = string(node, "'background' of \(field())") {
            if Self.isColour(text) { image.background = text } else { report(.invalidColour(text), at: node) }
        }
        if format != .image {
            for key in Self.imageKeys {
                if let entry = fields.entries[key] { report(.imageOptionWithoutImage(key), at: entry.keyMark) }
            }
        } else if layoutKnown, image.layout != .grid, let entry = fields.entries["columns"] {
            // A grid's width; a row or a column would ignore it without a word.
            report(.columnsWithoutGrid(field(), layout: image.layout.rawValue), at: entry.keyMark)
        }
        let (base, prefix) = archiveNaming(fields, format: written ?? (fields["format"] == nil ? .concat : nil), field())
        guard let inputs, let to else { return nil }
        if fields["format"] == nil {
            warnIfNamedAsOtherFormat(to, field())
        } else if let written {
            warnIfNamedAsOtherFormat(to, written: written, field())
        }
        return CombineAction(inputs: inputs, to: to, format: format, image: image, base: base, prefix: prefix)
    }

    /// `base` and `prefix`, which only an archive's entry names take. `format` is nil after an
    /// invalid one (reported already): which format these keys need to go with is then unknown.
    private mutating func archiveNaming(
        _ fields: ActionFields, format: CombineFormat?, _ field: @autoclosure () -> String
    ) -> (base: Located<String>?, prefix: Located<String>?) {
        let base = fields["base"].flatMap { nonEmptyString($0, "'base' of \(field())") }
        var prefix = fields["prefix"].flatMap { nonEmptyString($0, "'prefix' of \(field())") }
        if let text = prefix, let problem = EntryPrefix.problem(text.value), let node = fields["prefix"] {
            report(.invalidPrefix(text.value, field(), problem: problem), at: node)
            prefix = nil
        }
        if let format, !format.isArchive {
            for key in Self.archiveKeys {
                if let entry = fields.entries[key] { report(.archiveOptionWithoutArchive(key), at: entry.keyMark) }
            }
        }
        return (base, prefix)
    }

    static func cellSize(_ text: String) -> CombineAction.CellSize? {
        let parts = text.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
            (1...100_000).contains(width), (1...100_000).contains(height)
        else { return nil }
        return .init(width: width, height: height)
    }

    static func isColour(_ text: String) -> Bool {
        text.utf8.count == 7 && text.first == "#" && text.dropFirst().allSatisfy(\.isHexDigit)
    }
}
