/// What a task does: exactly one per task.
///
/// The larger actions are boxed (`indirect`): a shell action, nearly every task of a large
/// file, then takes 17 bytes instead of 129 in each copy of a task (the decoded task, its
/// resolved action and its planned task).
public enum Action: Hashable, Sendable {
    case shell(ShellAction)
    indirect case download(DownloadAction)
    indirect case decompress(DecompressAction)
    indirect case combine(CombineAction)

    /// The action key in the file, and the `kind` in events.
    public var kind: String {
        switch self {
        case .shell: "shell"
        case .download: "download"
        case .decompress: "decompress"
        case .combine: "combine"
        }
    }

    public static let kinds = ["shell", "download", "decompress", "combine"]
}

/// A string runs under `/bin/sh -e -c`; a list runs as argv, with no shell.
public enum ShellAction: Hashable, Sendable {
    case script(String)
    case argv([String])
}

public struct DownloadAction: Hashable, Sendable {
    public var url: Located<String>
    public var to: Located<String>
    public var sha256: String?
    public var headers: [Header]

    public struct Header: Hashable, Sendable {
        public var name: String
        public var value: Located<String>
        public init(name: String, value: Located<String>) {
            self.name = name
            self.value = value
        }
    }

    public init(url: Located<String>, to: Located<String>, sha256: String?, headers: [Header]) {
        self.url = url
        self.to = to
        self.sha256 = sha256
        self.headers = headers
    }
}

public enum ArchiveFormat: String, CaseIterable, Sendable {
    case tar, tarGz = "tar.gz", tarBz2 = "tar.bz2", tarXz = "tar.xz", tarZst = "tar.zst", zip, gz
}

public struct DecompressAction: Hashable, Sendable {
    public var from: Located<String>
    public var to: Located<String>
    /// nil: detected from the content.
    public var format: ArchiveFormat?
    public var stripComponents: Int
    /// Ceilings against archive bombs (`max_files`, `max_bytes`, `max_ratio`); nil: the default.
    public var maxFiles: Int?
    public var maxBytes: Int?
    public var maxRatio: Int?

    public init(
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

public enum CombineFormat: String, CaseIterable, Sendable {
    case concat, tar, tarGz = "tar.gz", zip, image
}

public enum ImageLayout: String, CaseIterable, Sendable {
    case row, column, grid
}

public struct CombineAction: Hashable, Sendable {
    public var inputs: [Located<String>]
    public var to: Located<String>
    public var format: CombineFormat
    public var image: ImageOptions

    /// Options of `format: image`.
    public struct ImageOptions: Hashable, Sendable {
        public var layout: ImageLayout = .row
        public var columns: Int?
        /// Each cell's size, width by height.
        public var cellSize: CellSize?
        /// `#RRGGBB`; nil is transparent.
        public var background: String?
        public init() {}
    }

    public struct CellSize: Hashable, Sendable {
        public var width: Int
        public var height: Int
        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
    }

    public init(inputs: [Located<String>], to: Located<String>, format: CombineFormat, image: ImageOptions) {
        self.inputs = inputs
        self.to = to
        self.format = format
        self.image = image
    }
}
