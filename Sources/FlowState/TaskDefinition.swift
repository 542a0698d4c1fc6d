import FlowFiles
import FlowModel
import FlowPlanning
import Foundation

/// What a task does, as text for its fingerprint: the resolved action, its workdir and its
/// declared `inputs` and `outputs` patterns, without the places they are written in the file (so
/// that moving a task or adding a line above it changes nothing). Retries, timeout and the like
/// change how a task runs, not what it makes, and are left out, as make leaves out its flags.
package enum TaskDefinition {
    package static func text(of task: PlannedTask) -> String {
        var fields: [String] = [task.action.kind, "workdir=" + task.workdir]
        switch task.action {
        case .shell(.script(let script)):
            fields += ["script", script]
            // Only when not the default, so that fingerprints recorded before `interpreter` still match.
            if task.spec.interpreter != .sh { fields += ["interpreter"] + task.spec.interpreter.argv(running: "") }
        case .shell(.argv(let argv)):
            fields += ["argv"] + argv
        case .download(let download):
            fields += ["url=" + download.url.value, "to=" + download.to.value, "sha256=" + (download.sha256 ?? "")]
            fields += download.headers.map { "header=\($0.name):\($0.value.value)" }
        case .decompress(let decompress):
            fields += [
                "from=" + decompress.from.value, "to=" + decompress.to.value,
                "format=" + (decompress.format?.rawValue ?? ""), "strip=\(decompress.stripComponents)",
                "max_files=\(decompress.maxFiles ?? -1)", "max_bytes=\(decompress.maxBytes ?? -1)",
                "max_ratio=\(decompress.maxRatio ?? -1)",
            ]
        case .group:
            break  // what a group does is its needs, whose fingerprints its own includes
        case .combine(let combine):
            let image = combine.image
            fields += combine.inputs.map { "input=" + $0.value }
            fields += [
                "to=" + combine.to.value, "format=" + combine.format.rawValue, "layout=" + image.layout.rawValue,
                "columns=\(image.columns ?? -1)",
                "cell=\(image.cellSize.map { "\($0.width)x\($0.height)" } ?? "")", "background=" + (image.background ?? ""),
            ]
            // Only when set, so that fingerprints recorded before `base` and `prefix` still match.
            if let base = combine.base { fields.append("base=" + base.value) }
            if let prefix = combine.prefix { fields.append("prefix=" + prefix.value) }
        }
        fields += inputs(of: task).map { "input-pattern=" + $0 }
        fields += outputs(of: task).map { "output-pattern=" + $0 }
        return fields.joined(separator: "\0")
    }

    /// The task's declared inputs and those its action implies (a decompress task's `from`, a
    /// combine task's `inputs`). A download's input is its URL and sha256, in its definition,
    /// and for a `file:` URL the file it copies too (`localSource`).
    package static func inputs(of task: PlannedTask) -> [String] { inputs(of: TaskFiles(task)) }

    package static func inputs(of task: TaskFiles) -> [String] {
        switch task.action {
        case .shell, .group: task.inputs
        // Not when the URL took a secret: the state keeps input paths in clear (the record and
        // the fingerprints keep digests only), and a secret is written to no state file.
        case .download(let download) where !task.tookSecret: localSource(of: download).map { [$0] + task.inputs } ?? task.inputs
        case .download: task.inputs
        case .decompress(let decompress): [decompress.from.value] + task.inputs
        case .combine(let combine): combine.inputs.map(\.value) + task.inputs
        }
    }

    /// Whether `inputs(of:)` is surely empty, told without making it: a download's URL that may
    /// be a `file:` one counts as an input (`localSource` decodes the whole path; the checks ask
    /// this for every task that ends or starts).
    static func hasNoInputs(_ task: TaskFiles) -> Bool {
        guard task.inputs.isEmpty else { return false }
        switch task.action {
        case .shell, .group: return true
        case .download(let download): return task.tookSecret || !FileURLPath.hasFileScheme(download.url.value)
        case .decompress, .combine: return false
        }
    }

    /// How many of `inputs(of:)`, from the first, name one file each, never a folder's files: a
    /// download's `file:` source. A folder there is not walked (`file:///` walked the whole file
    /// system before the download could fail on it, unbounded by its timeout): it is found as no
    /// file, so the download runs and fails on it at once.
    package static func singleFileInputs(of task: PlannedTask) -> Int { singleFileInputs(of: TaskFiles(task)) }

    package static func singleFileInputs(of task: TaskFiles) -> Int {
        guard case .download(let download) = task.action, !task.tookSecret, localSource(of: download) != nil else { return 0 }
        return 1
    }

    /// The file a `file:` URL names, percent-decoded as the download reads it: its contents are
    /// what the download makes, as `cp`'s source is a make rule's prerequisite, so an edit to it
    /// makes the download run again (its URL alone would keep a stale copy up to date). A path
    /// with `*`, `?` or `[` is left out: it would be taken as a glob.
    static func localSource(of download: DownloadAction) -> String? {
        guard let path = FileURLPath.path(of: download.url.value), !PathGlob.isPattern(path)
        else { return nil }
        return path
    }

    /// The task's declared outputs and the `to` of download, decompress and combine.
    package static func outputs(of task: PlannedTask) -> [String] { outputs(of: TaskFiles(task)) }

    package static func outputs(of task: TaskFiles) -> [String] {
        switch task.action {
        case .shell, .group: task.outputs
        case .download(let download): [download.to.value] + task.outputs
        case .decompress(let decompress): [decompress.to.value] + task.outputs
        case .combine(let combine): [combine.to.value] + task.outputs
        }
    }

    /// The task's outputs, which its input globs and folders leave out (`OwnOutputs`).
    package static func ownOutputs(of task: PlannedTask) -> OwnOutputs { ownOutputs(of: TaskFiles(task)) }

    package static func ownOutputs(of task: TaskFiles) -> OwnOutputs {
        OwnOutputs(outputs(of: task))
    }

    /// Whether the task can be up to date: it declares inputs or outputs, or its action implies
    /// them. Any other task always runs.
    package static func isTracked(_ task: PlannedTask) -> Bool { isTracked(TaskFiles(task)) }

    /// Whether any of `tasks` is tracked, each read in place: `contains(where:)` over the array
    /// hands the closure a copy of every task.
    package static func anyTracked(_ tasks: [PlannedTask]) -> Bool {
        tasks.withUnsafeBufferPointer { tasks in tasks.indices.contains { isTracked(TaskFiles(in: tasks, at: $0)) } }
    }

    package static func isTracked(_ task: TaskFiles) -> Bool {
        switch task.action {
        case .shell, .group: !task.inputs.isEmpty || !task.outputs.isEmpty
        case .download, .decompress, .combine: true
        }
    }
}

/// The fields of a task that name its files (`TaskDefinition`), taken from the plan in place:
/// a whole `PlannedTask` passed by value is copied, a retain and a release of each of its fields.
package struct TaskFiles {
    let action: Action
    let inputs: [String]
    let outputs: [String]
    /// Whether a field took a secret value (the plan's `shown` is then set).
    let tookSecret: Bool

    init(_ task: PlannedTask) {
        (action, inputs, outputs, tookSecret) = (task.action, task.inputs, task.outputs, task.shown != nil)
    }

    /// The task at `index`, its stored fields read where they are (no copy of the task).
    init(in tasks: UnsafeBufferPointer<PlannedTask>, at index: Int) {
        (action, inputs, outputs, tookSecret) = (tasks[index].action, tasks[index].inputs, tasks[index].outputs, tasks[index].shown != nil)
    }
}
