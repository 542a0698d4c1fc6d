import FlowFiles
import FlowModel
import Foundation

/// Expands variables and resolves paths of each task, reporting undefined variables and bad URLs.
struct TaskResolver {
    let workflow: Workflow
    /// The workflow's env with `--env` overrides applied.
    let workflowEnvironment: [EnvironmentEntry]
    private let workflowValues: [String: String]
    private let processEnvironment: [String: String]
    /// Variables whose values came from `--env` or the process environment and whose names
    /// look secret: `--dry-run` shows them as `***` (`SecretName`).
    private let maskedNames: Set<String>
    /// `--env` values among them, by name: the plan's `secretOverrides`.
    let secretOverrides: [String: String]
    /// Whether the task being resolved took the value of one of `maskedNames`.
    private var takesSecret = false
    private(set) var diagnostics: [Diagnostic] = []
    /// Every name the fields resolved so far refer to (`Interpolation.names`): all a plan can
    /// read of the process environment, values and which names are set (masking).
    private(set) var interpolatedNames: Set<String> = []

    static let workflowDirectoryVariable = "FLOWRUN_WORKFLOW_DIR"

    /// Precedence, lowest first: the process environment, the dotenv files in order, the file's
    /// `env`, the task's `env`, `--env`.
    init(workflow: Workflow, options: PlanningOptions) {
        self.workflow = workflow
        let overridden = Set(options.environmentOverrides.map(\.name))
        self.overridden = overridden
        overrideValues = Dictionary(options.environmentOverrides.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
        let written = Set(workflow.env.map(\.name))
        // Each dotenv name once, with its last value: a later file wins.
        var dotenvValues: [String: String] = [:]
        for entry in workflow.dotenv { dotenvValues[entry.name] = entry.value }
        var seen: Set<String> = []
        let dotenv = workflow.dotenv.reversed().filter { seen.insert($0.name).inserted }.reversed()
            .filter { !overridden.contains($0.name) && !written.contains($0.name) }
        workflowEnvironment = dotenv + workflow.env.filter { !overridden.contains($0.name) } + options.environmentOverrides
        workflowValues = Dictionary(workflowEnvironment.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
        processEnvironment = options.processEnvironment
        // Values from outside the file whose names look secret: `--env`'s and the dotenv files'.
        let overrides = options.environmentOverrides.filter { SecretName.looksSecret($0.name) }
        let tookSecret = Set(workflow.dotenvSecretNames)
        let secretDotenv = dotenv.filter { SecretName.looksSecret($0.name) || tookSecret.contains($0.name) }
        secretOverrides = Dictionary((secretDotenv + overrides).map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
        let workflowValues = workflowValues
        maskedNames = Set(overrides.map(\.name)).union(secretDotenv.map(\.name)).union(
            options.processEnvironment.keys.filter { workflowValues[$0] == nil && SecretName.looksSecret($0) })
    }

    /// `--env` names and values: they win over a task's own env too.
    private let overridden: Set<String>
    private let overrideValues: [String: String]

    typealias Resolved = (
        workdir: String, environment: [EnvironmentEntry], action: Action, shown: ShownFields?, inputs: [String],
        outputs: [String]
    )

    /// The workflow's task at `index`, resolved (see `resolve(_:)`).
    mutating func resolve(taskAt index: Int) -> Resolved? {
        // Nothing to expand: scripts read their variables from the environment at run time.
        // Asked of the task in place: a copy of it would retain a dozen fields.
        if workflow.tasks[index].workdir == nil, workflow.tasks[index].inputs.isEmpty, workflow.tasks[index].outputs.isEmpty,
            workflow.tasks[index].action.isShellOrGroup
        {
            return (workflow.directory, merged(workflow.tasks[index].env), workflow.tasks[index].action, nil, [], [])
        }
        return resolve(workflow.tasks[index])
    }

    /// Where the task runs, its environment and its action, resolved; nil if something is undefined.
    mutating func resolve(_ task: TaskSpec) -> Resolved? {
        let before = diagnostics.count
        takesSecret = false
        let resolved = resolveFields(of: task, interpolation: interpolation(for: task))
        let interpolation = interpolation(for: task)
        let workdir = resolved?.workdir ?? workflow.directory
        let inputs = declaredPaths(task.inputs, "inputs", of: task, interpolation, workdir)
        let outputs = declaredPaths(task.outputs, "outputs", of: task, interpolation, workdir)
        guard diagnostics.count == before, let (workdir, action) = resolved else { return nil }
        return (
            workdir, merged(task.env), action, shownFields(of: task, (workdir, action, inputs, outputs)),
            inputs, outputs
        )
    }

    /// `inputs` or `outputs` expanded and made absolute against the task's workdir.
    private mutating func declaredPaths(
        _ paths: [Located<String>], _ field: String, of task: TaskSpec, _ interpolation: Interpolation, _ workdir: String
    ) -> [String] {
        paths.compactMap { path in
            expand(path, "'\(field)' of task '\(task.id)'", interpolation, task).map {
                PathResolution.resolve($0.value, against: workdir)
            }
        }
    }

    private mutating func resolveFields(of task: TaskSpec, interpolation: Interpolation) -> (workdir: String, action: Action)? {
        var workdir = workflow.directory
        if let written = task.workdir, let expanded = expand(written, "'workdir' of task '\(task.id)'", interpolation, task) {
            workdir = PathResolution.resolve(expanded.value, against: workflow.directory)
        }
        return resolve(task.action, task: task, interpolation: interpolation, workdir: workdir).map { (workdir, $0) }
    }

    /// The task's fields resolved again with secret values as `***`, if any of them took one.
    private mutating func shownFields(
        of task: TaskSpec, _ resolved: (workdir: String, action: Action, inputs: [String], outputs: [String])
    ) -> ShownFields? {
        guard takesSecret else { return nil }
        // What is shown is not checked: `https://***/` may not parse as a URL, yet the task is valid.
        let checked = diagnostics.count
        defer { diagnostics.removeSubrange(checked...) }
        let masking = interpolation(for: task, maskingSecrets: true)
        guard let shown = resolveFields(of: task, interpolation: masking) else { return nil }
        let inputs = declaredPaths(task.inputs, "inputs", of: task, masking, shown.workdir)
        let outputs = declaredPaths(task.outputs, "outputs", of: task, masking, shown.workdir)
        guard shown.workdir != resolved.workdir || shown.action != resolved.action || inputs != resolved.inputs || outputs != resolved.outputs
        else { return nil }
        return ShownFields(workdir: shown.workdir, action: shown.action, inputs: inputs, outputs: outputs)
    }

    private func merged(_ taskEnvironment: [EnvironmentEntry]) -> [EnvironmentEntry] {
        if taskEnvironment.isEmpty { return workflowEnvironment }
        let names = Set(taskEnvironment.map(\.name))
        if overridden.isEmpty { return workflowEnvironment.filter { !names.contains($0.name) } + taskEnvironment }
        return workflowEnvironment.filter { !names.contains($0.name) || overridden.contains($0.name) }
            + taskEnvironment.filter { !overridden.contains($0.name) }
    }

    private func interpolation(for task: TaskSpec, maskingSecrets: Bool = false) -> Interpolation {
        let directory = workflow.directory
        let taskEnvironment = task.env
        let taskSecrets = task.secretEnvironmentNames
        let workflowValues = workflowValues
        let processEnvironment = processEnvironment
        let overrideValues = overrideValues
        guard maskingSecrets else {
            return Interpolation { name in
                if name == Self.workflowDirectoryVariable { return directory }
                if let value = overrideValues[name] { return value }
                return taskEnvironment.last { $0.name == name }?.value ?? workflowValues[name] ?? processEnvironment[name]
            }
        }
        let maskedNames = maskedNames
        return Interpolation { name in
            if name == Self.workflowDirectoryVariable { return directory }
            if overrideValues[name] == nil, let value = taskEnvironment.last(where: { $0.name == name })?.value {
                return taskSecrets.contains(name) && !value.isEmpty ? SecretName.mask : value
            }
            let value = workflowValues[name] ?? processEnvironment[name]
            // An empty secret stays empty, so that `${TOKEN:-default}` shows the default it takes.
            return maskedNames.contains(name) && value?.isEmpty == false ? SecretName.mask : value
        }
    }

    private mutating func resolve(_ action: Action, task: TaskSpec, interpolation: Interpolation, workdir: String) -> Action? {
        func path(_ value: Located<String>, _ field: String) -> Located<String>? {
            expand(value, "'\(field)' of task '\(task.id)'", interpolation, task).map {
                Located(PathResolution.resolve($0.value, against: workdir), at: $0.location)
            }
        }
        // A download's or combine's `to` is one file. Written as a folder (`downloads/`, an
        // `${OUT}` that ends in `/`, `build/..`), it was the file `downloads` or a failed rename.
        func file(_ value: Located<String>, of kind: String) -> Located<String>? {
            guard let expanded = expand(value, "'to' of task '\(task.id)'", interpolation, task) else { return nil }
            guard !Self.namesFolder(expanded.value) else {
                // As written: the expansion may hold a secret value.
                diagnostics.append(Diagnostic(.toNamesFolder(value.value, task: task.id, kind: kind), at: value.location))
                return nil
            }
            return Located(PathResolution.resolve(expanded.value, against: workdir), at: expanded.location)
        }
        switch action {
        case .shell, .group:
            return action
        case .download(var download):
            let url = expand(download.url, "'url' of task '\(task.id)'", interpolation, task)
            // As written when a secret went into it: the error would print its value.
            let secretInURL = Interpolation.names(in: download.url.value).contains { isMasked($0, in: task) }
            if let url { checkURL(url, shownAs: secretInURL ? download.url.value : url.value, task: task.id) }
            let to = file(download.to, of: "download")
            download.headers = download.headers.compactMap { header in
                expand(header.value, "header '\(header.name)' of task '\(task.id)'", interpolation, task).map {
                    .init(name: header.name, value: $0)
                }
            }
            guard let url, let to else { return nil }
            download.url = url
            download.to = to
            return .download(download)
        case .decompress(var decompress):
            // Both, before giving up, so that every problem is reported.
            let from = path(decompress.from, "from")
            let to = path(decompress.to, "to")
            guard let from, let to else { return nil }
            decompress.from = from
            decompress.to = to
            return .decompress(decompress)
        case .combine(var combine):
            let inputs = combine.inputs.compactMap { path($0, "inputs") }
            let to = file(combine.to, of: "combine")
            var failed = inputs.count != combine.inputs.count
            var base: Located<String>?
            if let written = combine.base {
                base = path(written, "base")
                failed = failed || base == nil
            }
            var prefix: Located<String>?
            if let written = combine.prefix {
                prefix = expand(written, "'prefix' of task '\(task.id)'", interpolation, task)
                failed = failed || prefix == nil
            }
            guard let to, !failed, checkArchiveNaming(written: combine, inputs: inputs, base: base, prefix: prefix, task: task.id),
                checkInputsAreNotTo(written: combine, inputs: inputs, to: to, task: task.id)
            else { return nil }
            combine.inputs = inputs
            combine.to = to
            combine.base = base
            combine.prefix = prefix
            return .combine(combine)
        }
    }

    /// Whether a path, as written or expanded, can only be a folder: empty (the workdir), ending
    /// in `/`, or in a `.` or `..` component.
    static func namesFolder(_ path: String) -> Bool {
        path.isEmpty || path.hasSuffix("/") || path == "." || path == ".." || path.hasSuffix("/.") || path.hasSuffix("/..")
    }

    /// A combine archive's `prefix` once expanded, and each input against `base`: an entry
    /// named outside the archive's folder is refused, as `tar -C` users expect of a base.
    private mutating func checkArchiveNaming(
        written: CombineAction, inputs: [Located<String>], base: Located<String>?, prefix: Located<String>?, task: TaskID
    ) -> Bool {
        let before = diagnostics.count
        if let prefix, let problem = EntryPrefix.problem(prefix.value) {
            diagnostics.append(Diagnostic(.invalidExpandedPrefix(prefix.value, task: task, problem: problem), at: prefix.location))
        }
        if let base, let writtenBase = written.base {
            for (input, writtenInput) in zip(inputs, written.inputs) where !PathNesting.isInside(input.value, folder: base.value) {
                diagnostics.append(
                    Diagnostic(.inputOutsideBase(writtenInput.value, base: writtenBase.value, task: task), at: input.location))
            }
        }
        return diagnostics.count == before
    }

    /// A combine input path (not a pattern) that is its own `to`: the task would read the
    /// file it replaces. A pattern's matches leave `to` out when the task runs (`OwnOutputs`).
    private mutating func checkInputsAreNotTo(written: CombineAction, inputs: [Located<String>], to: Located<String>, task: TaskID) -> Bool {
        let before = diagnostics.count
        let output = PathResolution.normalize(to.value)
        for (input, writtenInput) in zip(inputs, written.inputs)
        where !input.value.contains(where: { "*?[".contains($0) }) && PathResolution.normalize(input.value) == output {
            diagnostics.append(Diagnostic(.inputIsTo(writtenInput.value, task: task), at: input.location))
        }
        return diagnostics.count == before
    }

    private mutating func expand(_ value: Located<String>, _ field: String, _ interpolation: Interpolation, _ task: TaskSpec) -> Located<String>? {
        if value.value.utf8.contains(UInt8(ascii: "$")) { interpolatedNames.formUnion(Interpolation.names(in: value.value)) }
        let expansion =
            maskedNames.isEmpty && task.secretEnvironmentNames.isEmpty
            ? interpolation.expand(value.value)
            : interpolation.expand(value.value) { if isMasked($0, in: task) { takesSecret = true } }
        switch expansion {
        case .expanded(let text):
            return Located(text, at: value.location)
        case .failed(let problems):
            for problem in problems {
                switch problem {
                case .malformed:
                    diagnostics.append(Diagnostic(.malformedVariable(field), at: value.location))
                case .undefined(let name):
                    let known = task.env.map(\.name) + workflowEnvironment.map(\.name) + [Self.workflowDirectoryVariable]
                    diagnostics.append(
                        Diagnostic(
                            .undefinedVariable(name, field, suggestion: Spelling.suggestion(for: name, among: known)),
                            at: value.location))
                }
            }
            return nil
        }
    }

    /// Whether `${name}` in `task` takes a secret value: one of `maskedNames`, or a value of
    /// the task's env from an included file's dotenv that is secret (unless `--env` sets it).
    private func isMasked(_ name: String, in task: TaskSpec) -> Bool {
        maskedNames.contains(name) || (task.secretEnvironmentNames.contains(name) && overrideValues[name] == nil)
    }

    static let urlSchemes = ["http", "https", "file"]

    /// `shown` is the URL as errors name it (as written when it took a secret value).
    private mutating func checkURL(_ url: Located<String>, shownAs shown: String, task: TaskID) {
        guard let components = URLComponents(string: url.value), let scheme = components.scheme?.lowercased() else {
            diagnostics.append(Diagnostic(.invalidURL(shown, task: task), at: url.location))
            return
        }
        // Decoded once, for the three checks of a `file:` URL's path.
        let filePath = scheme == "file" ? FileURLPath.bytes(of: url.value) : nil
        if !Self.urlSchemes.contains(scheme) {
            diagnostics.append(Diagnostic(.unsupportedScheme(scheme, task: task), at: url.location))
        } else if scheme == "file" ? filePath == nil : (components.host ?? "").isEmpty {
            diagnostics.append(Diagnostic(.invalidURL(shown, task: task), at: url.location))
        } else if filePath?.contains(0) == true {
            diagnostics.append(Diagnostic(.fileURLPathHoldsNUL(shown, task: task), at: url.location))
        } else if let filePath, String(validating: filePath, as: UTF8.self) == nil {
            diagnostics.append(Diagnostic(.fileURLPathNotUTF8(shown, task: task), at: url.location))
        } else if scheme != "file", components.percentEncodedPath.removingPercentEncoding == nil {
            // async-http-client would request `/` for it (see `Downloader`).
            diagnostics.append(Diagnostic(.urlPathNotUTF8(shown, task: task), at: url.location))
        }
    }
}

extension Action {
    /// A shell script or argv, or a group: no field of the action itself has variables to expand.
    fileprivate var isShellOrGroup: Bool {
        switch self {
        case .shell, .group: true
        case .download, .decompress, .combine: false
        }
    }
}

extension Diagnostic.Message {
    static func invalidExpandedPrefix(_ value: String, task: TaskID, problem: String) -> Self {
        Self("'prefix' of task '\(task)' expands to '\(value)': \(problem)", hint: "write a relative folder, such as 'app-1.0/'")
    }
    static func toNamesFolder(_ value: String, task: TaskID, kind: String) -> Self {
        Self(
            "'to' of task '\(task)' names a folder ('\(value)'): a \(kind) writes one file",
            hint: "name the file, as in 'downloads/app.tar.gz': a path that does not end in '/', '.' or '..'")
    }
    static func inputIsTo(_ input: String, task: TaskID) -> Self {
        Self(
            "input '\(input)' of task '\(task)' is its own 'to'",
            hint: "a combine cannot read the file it writes; a glob that matches 'to' leaves it out")
    }
    static func inputOutsideBase(_ input: String, base: String, task: TaskID) -> Self {
        Self(
            "input '\(input)' of task '\(task)' is outside its base '\(base)'",
            hint: "entry names are relative to 'base', as with 'tar -C': choose a base that holds every input")
    }
    static func undefinedVariable(_ name: String, _ field: String, suggestion: String?) -> Self {
        Self("undefined variable '\(name)' in \(field)", hint: suggestion.map { "did you mean '\($0)'?" })
    }
    static func malformedVariable(_ field: String) -> Self {
        Self("malformed variable reference in \(field): write ${NAME}, or $${ for a literal ${")
    }
    static func unsupportedScheme(_ scheme: String, task: TaskID) -> Self {
        Self("unsupported URL scheme '\(scheme)' in 'url' of task '\(task)': use http, https or file")
    }
    static func fileURLPathHoldsNUL(_ url: String, task: TaskID) -> Self {
        Self("URL '\(url)' in 'url' of task '\(task)' holds %00 in its path: a path cannot hold a NUL byte (it would end there)")
    }
    static func fileURLPathNotUTF8(_ url: String, task: TaskID) -> Self {
        Self("URL '\(url)' in 'url' of task '\(task)' names a path whose percent-encoded bytes are not UTF-8, which flowrun cannot open")
    }

    static func urlPathNotUTF8(_ url: String, task: TaskID) -> Self {
        Self(
            "URL '\(url)' in 'url' of task '\(task)' has a path whose percent-encoded bytes are not UTF-8, which flowrun's HTTP client cannot request"
        )
    }
    static func invalidURL(_ url: String, task: TaskID) -> Self {
        Self("invalid URL '\(url)' in 'url' of task '\(task)': expected http://HOST/..., https://HOST/... or file:///PATH")
    }
}
