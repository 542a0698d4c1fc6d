import Foundation
import Glibc

/// The environment children start with: flowrun's own, made into C strings once per run, with
/// each task's variables over it.
///
/// Spawning is most of the cost of a small task, so a spawn allocates only the task's own
/// variables, not a dictionary copy and a C string per variable of the whole block.
///
/// - Warning: immutable after `init` but for `taskEntries` and `taskEntriesInUse`, which are
///   guarded by `lock`; `base` is freed by `deinit`, when no spawn can use it.
final class ChildEnvironment: @unchecked Sendable {
    private let base: [(name: String, entry: UnsafeMutablePointer<CChar>)]
    private let baseValues: [String: String]
    /// Each name's place in `base`: a spawn looks up its few overrides here rather than every
    /// base name in a set of them (a tenth of flowrun's instructions a task, before the spawn).
    private let baseIndexes: [String: Int]

    private let lock = NSLock()
    /// The `envp` of a task that sets no variable (`withTaskEntries`), made for the last workflow
    /// folder; taken out while a spawn uses it.
    private var taskEntries: TaskEntries?
    private var taskEntriesInUse = false

    /// The base without flowrun's two names, then a slot for `FLOWRUN_TASK`, the folder's
    /// `FLOWRUN_WORKFLOW_DIR` and the NULL: the order `withEntries` gives them.
    private struct TaskEntries {
        var workflowDirectory: String
        var folderEntry: UnsafeMutablePointer<CChar>
        var entries: [UnsafeMutablePointer<CChar>?]
        var taskSlot: Int { entries.count - 3 }
    }

    static let taskName = "FLOWRUN_TASK"
    static let workflowDirectoryName = "FLOWRUN_WORKFLOW_DIR"

    init(_ environment: [String: String]) {
        baseValues = environment
        base = environment.sorted { $0.key < $1.key }.map { ($0.key, strdup("\($0.key)=\($0.value)")!) }
        baseIndexes = Dictionary(uniqueKeysWithValues: base.enumerated().map { ($0.element.name, $0.offset) })
    }

    deinit {
        for (_, entry) in base { free(entry) }
        if let taskEntries { free(taskEntries.folderEntry) }
    }

    /// What `withEntries` gives for a task that sets no variable of its own, whose overrides are
    /// flowrun's two: `[(FLOWRUN_WORKFLOW_DIR, workflowDirectory), (FLOWRUN_TASK, task)]`. Most
    /// tasks of a graph of small ones are such, and all share the folder: the `envp` is made once
    /// per folder and a spawn writes only the task's entry (no copy of the whole base a spawn, on
    /// the loop that spawns the next task). A spawn while another uses it takes `withEntries`.
    func withTaskEntries<R>(
        workflowDirectory: String, task: String, _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) throws -> R
    ) rethrows -> R {
        guard var made = takeTaskEntries(workflowDirectory) else {
            return try withEntries(overrides: [(Self.workflowDirectoryName, workflowDirectory), (Self.taskName, task)], body)
        }
        let taskEntry = Self.entry(Self.taskName, task)
        made.entries[made.taskSlot] = taskEntry
        defer {
            made.entries[made.taskSlot] = nil
            free(taskEntry)
            lock.withLock {
                taskEntries = made
                taskEntriesInUse = false
            }
        }
        return try made.entries.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }

    /// The task entries of `workflowDirectory`, made if the kept ones are another folder's;
    /// nil while a spawn uses them.
    private func takeTaskEntries(_ workflowDirectory: String) -> TaskEntries? {
        let kept: TaskEntries?? = lock.withLock {
            guard !taskEntriesInUse else { return nil }
            taskEntriesInUse = true
            return .some(taskEntries.take())
        }
        guard case .some(let kept) = kept else { return nil }
        if let kept, kept.workflowDirectory == workflowDirectory { return kept }
        if let kept { free(kept.folderEntry) }
        let folderEntry = Self.entry(Self.workflowDirectoryName, workflowDirectory)
        var entries: [UnsafeMutablePointer<CChar>?] = []
        entries.reserveCapacity(base.count + 3)
        for (name, entry) in base where name != Self.taskName && name != Self.workflowDirectoryName { entries.append(entry) }
        entries += [nil, folderEntry, nil]
        return TaskEntries(workflowDirectory: workflowDirectory, folderEntry: folderEntry, entries: entries)
    }

    /// The value a child sees for `name` once `overrides` are applied.
    func value(of name: String, overrides: [(name: String, value: String)]) -> String? {
        overrides.last { $0.name == name }?.value ?? baseValues[name]
    }

    /// Calls `body` with a NULL-terminated `envp`: the base without the names `overrides` set,
    /// then the overrides (the last of a name wins).
    func withEntries<R>(
        overrides: [(name: String, value: String)], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) throws -> R
    ) rethrows -> R {
        var own: [UnsafeMutablePointer<CChar>?] = []
        own.reserveCapacity(overrides.count)
        var replaced: [Int] = []
        // A task sets a few names (its env, FLOWRUN_TASK, FLOWRUN_WORKFLOW_DIR): a scan of the
        // ones after each costs less than hashing them all into a set, before every spawn.
        let scans = overrides.count <= Self.overridesScanned
        var seen: Set<String> = []
        for index in overrides.indices.reversed() {
            let name = overrides[index].name
            let setLater = scans ? overrides[(index + 1)...].contains { $0.name == name } : !seen.insert(name).inserted
            if setLater { continue }
            own.append(Self.entry(name, overrides[index].value))
            if let base = baseIndexes[name] { replaced.append(base) }
        }
        defer { own.forEach { free($0) } }
        var entries: [UnsafeMutablePointer<CChar>?] = []
        entries.reserveCapacity(base.count + own.count + 1)
        for (index, (_, entry)) in base.enumerated() where !replaced.contains(index) { entries.append(entry) }
        entries += own
        entries.append(nil)
        return try entries.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }

    /// Up to this many overrides, each is checked against the later ones by a scan.
    static let overridesScanned = 16

    /// `NAME=VALUE` as a C string of `malloc`, copied from the two strings' UTF-8 as they are:
    /// not an interpolated `String`, then its C copy, then `strdup`'s.
    private static func entry(_ name: String, _ value: String) -> UnsafeMutablePointer<CChar> {
        var (name, value) = (name, value)
        return name.withUTF8 { name in
            value.withUTF8 { value in
                let entry = malloc(name.count + value.count + 2)!.assumingMemoryBound(to: UInt8.self)
                if name.count > 0 { entry.update(from: name.baseAddress!, count: name.count) }
                entry[name.count] = UInt8(ascii: "=")
                if value.count > 0 { (entry + name.count + 1).update(from: value.baseAddress!, count: value.count) }
                entry[name.count + value.count + 1] = 0
                return UnsafeMutableRawPointer(entry).assumingMemoryBound(to: CChar.self)
            }
        }
    }
}
