import FlowModel
import Foundation

/// `include: {NS: path/to/other.yaml}`: another workflow file's tasks, as `NS:ID`.
///
/// Each included file is loaded and checked on its own (its problems name it, with its own
/// lines), with its `defaults`, `env` and `dotenv` applying to its tasks only. Its tasks run in
/// its folder unless they say otherwise; their `needs` are resolved inside the namespace; its
/// queues are merged by name. Its `name`, `concurrency` and `fail_fast` are the including
/// file's business and are not looked at.
enum Includes {
    /// Deeper than this, a chain of includes is refused, as a cycle would be.
    static let maxDepth = 16

    /// Adds the tasks and queues of `workflow.includes` (and theirs) to `workflow`, and the
    /// files read for them to `sources`.
    static func resolve(
        _ workflow: inout Workflow, declared: inout [TaskID], sources: inout [SourceFile], chain: [String], limits: YAMLLimits,
        environment: [String: String]
    ) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        for include in workflow.includes {
            let path = include.path.value.isAbsolutePath ? include.path.value : workflow.directory + "/" + include.path.value
            let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
            // By bytes: String's == takes `caf\u{E9}.yaml` and `cafe\u{301}.yaml`, two files, for one.
            if let start = chain.firstIndex(where: { $0.utf8.elementsEqual(absolute.utf8) }) {
                let folder = chain[0].pathFolder
                let names = (chain[start...] + [absolute]).map { relative($0, from: folder) }
                diagnostics.append(Diagnostic(.includeCycle(names), at: include.path.location))
                continue
            }
            guard chain.count < maxDepth else {
                diagnostics.append(Diagnostic(.includeTooDeep(maxDepth), at: include.path.location))
                continue
            }
            // Problems name the file as the including one names it, from the same folder.
            let label =
                include.path.value.isAbsolutePath || !workflow.file.utf8.contains(UInt8(ascii: "/"))
                ? include.path.value : workflow.file.pathFolder + "/" + include.path.value
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: absolute, isDirectory: &isFolder) else {
                diagnostics.append(Diagnostic(.includeMissing(include.path.value), at: include.path.location))
                continue
            }
            // At the entry that names it, as a missing file: reading it would name only the folder.
            guard !isFolder.boolValue else {
                diagnostics.append(Diagnostic(.includeFolder(include.path.value), at: include.path.location))
                continue
            }
            var loaded = WorkflowLoader.load(path: absolute, limits: limits, label: label, chain: chain + [absolute], environment: environment)
            // A file included under two names is read twice: what is wrong in it is said once.
            appendNew(loaded.diagnostics, to: &diagnostics)
            sources += loaded.sources
            declared += loaded.declaredTaskIDs.map { include.namespace + ":" + $0 }
            guard var other = loaded.workflow.take() else { continue }
            appendNew(merge(&other, into: &workflow, as: include.namespace), to: &diagnostics)
        }
        return diagnostics
    }

    /// `path` from the root file's folder (`lib/flow.yaml`, `../shared/flowrun.yaml`): the
    /// last component alone cannot tell apart the files of a cycle when, as go-task's
    /// Taskfile.yml, every file has the same name.
    /// By bytes: split by Characters, a folder starting with a combining mark stayed joined to
    /// the one before it; and String's == takes the NFC and NFD spellings of a name for one.
    static func relative(_ path: String, from folder: String) -> String {
        let target = path.utf8.split(separator: UInt8(ascii: "/"))
        let base = folder.utf8.split(separator: UInt8(ascii: "/"))
        var common = 0
        while common < min(target.count, base.count), target[common].elementsEqual(base[common]) { common += 1 }
        let parts = Array(repeating: "..", count: base.count - common) + target[common...].map { String(decoding: $0, as: UTF8.self) }
        return parts.joined(separator: "/")
    }

    /// `found` added to `diagnostics`, less those already in it.
    private static func appendNew(_ found: [Diagnostic], to diagnostics: inout [Diagnostic]) {
        var seen = Set(diagnostics)
        for diagnostic in found where seen.insert(diagnostic).inserted { diagnostics.append(diagnostic) }
    }

    /// `other`'s tasks added to `workflow` as `NS:ID`, and its queues by name.
    private static func merge(_ other: inout Workflow, into workflow: inout Workflow, as namespace: String) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        for queue in other.queues {
            if let mine = workflow.queues.first(where: { $0.name == queue.name }) {
                if mine.concurrency != queue.concurrency {
                    diagnostics.append(Diagnostic(.queueConflict(queue.name, mine.concurrency, at: mine.location), at: queue.location))
                }
            } else {
                workflow.queues.append(queue)
            }
        }
        // The other file's own variables, under each task's: the file's dotenv, then its env.
        let inherited = other.dotenv + other.env
        // Its dotenv values that are secret, as the root file's are masked (unless its env sets them).
        let written = Set(other.env.map(\.name))
        let tookSecret = Set(other.dotenvSecretNames)
        let secrets = Set(other.dotenv.map(\.name).filter { !written.contains($0) && (SecretName.looksSecret($0) || tookSecret.contains($0)) })
        workflow.dotenvEnvironmentNames = Array(Set(workflow.dotenvEnvironmentNames + other.dotenvEnvironmentNames)).sorted()
        let prefix = namespace + ":"
        for var task in other.tasks {
            task.id = prefix + task.id
            task.needs = task.needs.map { Located(prefix + $0.value, at: $0.location) }
            if !inherited.isEmpty {
                let own = Set(task.env.map(\.name))
                task.env = inherited.filter { !own.contains($0.name) } + task.env
                task.secretEnvironmentNames.formUnion(secrets.subtracting(own))
            }
            let folder = Located(other.directory, at: task.location)
            if let workdir = task.workdir {
                if !workdir.value.isAbsolutePath, !workdir.value.hasPrefix("${") {
                    task.workdir = Located(other.directory + "/" + workdir.value, at: workdir.location)
                }
            } else {
                task.workdir = folder
            }
            workflow.tasks.append(task)
        }
        for (name, ids) in other.matrixCombinations {
            workflow.matrixCombinations[prefix + name] = ids.map { prefix + $0 }
        }
        return diagnostics
    }
}

extension Diagnostic.Message {
    static func includeCycle(_ names: [String]) -> Self {
        Self("include cycle: \(names.joined(separator: " -> "))")
    }
    static func includeTooDeep(_ depth: Int) -> Self {
        Self("includes nest deeper than \(depth) files")
    }
    static func includeMissing(_ path: String) -> Self {
        Self("included file '\(path)' does not exist")
    }
    static func includeFolder(_ path: String) -> Self {
        Self("included file '\(path)' is a folder: name a workflow file in it")
    }
    static func queueConflict(_ name: String, _ concurrency: Int, at location: SourceLocation) -> Self {
        Self(
            "queue '\(name)' is declared with another concurrency (\(concurrency)) at \(location)",
            hint: "an included file's queues are merged by name: give both the same limit, or another name")
    }
}
