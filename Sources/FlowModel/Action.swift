/// What a task does: exactly one per task, or `group` for a task with needs and no action.
///
/// The larger actions are boxed (`indirect`): a shell action, nearly every task of a large
/// file, then takes 17 bytes instead of 129 in each copy of a task (the decoded task, its
/// resolved action and its planned task).
package enum Action: Hashable, Sendable {
    case shell(ShellAction)
    indirect case download(DownloadAction)
    indirect case decompress(DecompressAction)
    indirect case combine(CombineAction)
    /// No action: the task only groups its needs, and succeeds once they let it run.
    case group

    /// The action key in the file, and the `kind` in events.
    package var kind: String {
        switch self {
        case .shell: "shell"
        case .download: "download"
        case .decompress: "decompress"
        case .combine: "combine"
        case .group: "group"
        }
    }

    /// The action keys of a task; a task with none of them is a group.
    package static let kinds = ["shell", "download", "decompress", "combine"]
}

/// A string runs under `/bin/sh -e -c`; a list runs as argv, with no shell.
package enum ShellAction: Hashable, Sendable {
    case script(String)
    case argv([String])
}

package struct DownloadAction: Hashable, Sendable {
    package var url: Located<String>
    package var to: Located<String>
    package var sha256: String?
    package var headers: [Header]

    package struct Header: Hashable, Sendable {
        package var name: String
        package var value: Located<String>
        package init(name: String, value: Located<String>) {
            self.name = name
            self.value = value
        }
    }

    package init(url: Located<String>, to: Located<String>, sha256: String?, headers: [Header]) {
        self.url = url
        self.to = to
        self.sha256 = sha256
        self.headers = headers
    }
}

package enum ArchiveFormat: String, CaseIterable, Sendable {
    case tar, tarGz = "tar.gz", tarBz2 = "tar.bz2", tarXz = "tar.xz", tarZst = "tar.zst", zip, gz
}

package struct DecompressAction: Hashable, Sendable {
    package var from: Located<String>
    package var to: Located<String>
    /// nil: detected from the content.
    package var format: ArchiveFormat?
    package var stripComponents: Int
    /// Ceilings against archive bombs (`max_files`, `max_bytes`, `max_ratio`); nil: the default.
    package var maxFiles: Int?
    package var maxBytes: Int?
    package var maxRatio: Int?

    package init(
        from: Located<String>, to: Located<String>, format: ArchiveFormat?, stripComponents: Int,
        maxFiles: Int? = nil, maxBytes: Int? = nil, maxRatio: Int? = nil
    ) {
        self.from = from
        self.to = to
        self.format = format
        self.stripComponents = stripComponents
        self.maxFiles = maxFiles
        self.maxBytes = maxBytes
        self.maxRatio = maxRatio
    }
}

package enum CombineFormat: String, CaseIterable, Sendable {
    case concat, tar, tarGz = "tar.gz", zip, image

    /// The formats that name their entries, and so take `base` and `prefix`.
    package var isArchive: Bool { self == .tar || self == .tarGz || self == .zip }
}

package enum ImageLayout: String, CaseIterable, Sendable {
    case row, column, grid
}

package struct CombineAction: Hashable, Sendable {
    package var inputs: [Located<String>]
    package var to: Located<String>
    package var format: CombineFormat
    package var image: ImageOptions
    /// Archives only: the folder entry names are relative to (as `tar -C`); nil: the workdir.
    package var base: Located<String>?
    /// Archives only: prepended to every entry name, as `git archive --prefix` (`app-1.0/`).
    package var prefix: Located<String>?

    /// Options of `format: image`.
    package struct ImageOptions: Hashable, Sendable {
        package var layout: ImageLayout = .row
        package var columns: Int?
        /// Each cell's size, width by height.
        package var cellSize: CellSize?
        /// `#RRGGBB`; nil is transparent.
        package var background: String?
        package init() {}
    }

    package struct CellSize: Hashable, Sendable {
        package var width: Int
        package var height: Int
        package init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
    }

    package init(
        inputs: [Located<String>], to: Located<String>, format: CombineFormat, image: ImageOptions,
        base: Located<String>? = nil, prefix: Located<String>? = nil
    ) {
        self.inputs = inputs
        self.to = to
        self.format = format
        self.image = image
        self.base = base
        self.prefix = prefix
    }
}
