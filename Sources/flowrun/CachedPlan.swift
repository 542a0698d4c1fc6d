import FlowLoading
import FlowPlanning
import FlowState
import Foundation

/// `run`'s use of the compiled-plan cache (`PlanCache`): the plan of an unchanged workflow is
/// read from the state folder rather than parsed and planned again. `validate`, `--dry-run`,
/// `graph`, `list` and `export` always read the file.
final class CachedPlan {
    let cache: PlanCache
    let settings: [UInt8]
    /// The process environment the plan is made with: the key keeps the variables it read.
    private let processEnvironment: [String: String]
    /// `run --only`: the specs' `needs` are read with the plan (`OnlySelection` finds the needs
    /// taken as done there); any other run leaves them out.
    private let keepsNeedNames: Bool
    /// A plan made in this run, and the files it was made from, kept at the run's end (`storeMade`).
    private var pending: (plan: Plan, sources: [SourceFile])?

    /// The cache for a run of `file` with `options`; nil for a workflow read from a device
    /// (`/dev/stdin`), which has no folder to keep state in.
    init?(file: String, options: PlanningOptions, environment: [String: String]) {
        let workflowFile = URL(fileURLWithPath: file).standardizedFileURL.path
        guard !workflowFile.hasPrefix("/dev/"), !workflowFile.hasPrefix("/proc/") else { return nil }
        cache = PlanCache(folder: StateFolder(forWorkflowAt: workflowFile, environment: environment), workflowFile: workflowFile)
        settings = PlanCache.settings(path: file, options: options, workingDirectory: FileManager.default.currentDirectoryPath)
        processEnvironment = options.processEnvironment
        keepsNeedNames = options.onlyTargets
    }

    /// The definition digests kept with the plan this run read, if it read one that had them.
    private(set) var keptDefinitions: DefinitionDigests?

    /// The fingerprints that depend on the plan alone kept with the plan this run read, if any.
    private(set) var keptFingerprints: PlanFingerprints?

    /// Whether this run read its plan from the cache.
    private var readKept = false

    /// The workflow file's digest for the run record (`WorkflowDigest`), of the contents the
    /// plan was read or made from, when this run has it: the file is then not hashed again.
    private(set) var workflowDigest: String?

    /// The plan kept for this run, if its files did not change.
    func plan() -> Plan? {
        // A run takes every task from the plan's own list; the workflow's (which `list`,
        // `validate` and `--dry-run` print, and they read the file) is not read: 4.8 MB of a
        // 20,000-task no-op's peak. Nor are the specs' `needs` (2 MB there), but for `--only`.
        guard let kept = cache.kept(settings: settings, environment: processEnvironment, keepingFileTasks: false, keepingNeedNames: keepsNeedNames) else {
            return nil
        }
        keptDefinitions = kept.definitions
        keptFingerprints = kept.fingerprints
        readKept = true
        workflowDigest = kept.workflowDigest.map(WorkflowDigest.text(of:))
        return kept.plan
    }

    /// Notes `plan`, made from `sources`, to keep at the end of the run: by then the run has
    /// made the state folder (its record, its fingerprints), which the cache is written only into.
    func made(_ plan: Plan, sources: [SourceFile]) {
        pending = (plan, sources)
        // The loader reads the workflow file first.
        workflowDigest = sources.first?.contents.map(WorkflowDigest.of(contents:))
    }

    /// Keeps the plan made in this run, if one was, for the next run, with the digests the run
    /// took of its tasks' definitions (`definitions`: the up-to-date check's, if there was
    /// one, else the record's); says if that failed (the next run then reads the file again).
    /// `definitions` is taken only when a plan is kept, and so are `fingerprints` (the record's
    /// fingerprints that depend on the plan alone).
    /// A run that read the plan, and took fingerprints the kept ones lack, keeps them in the cache.
    func storeMade(definitions: @autoclosure () -> DefinitionDigests?, fingerprints: @autoclosure () -> PlanFingerprints? = nil) {
        guard let pending = pending.take() else {
            guard readKept, keptFingerprints?.isWhole != true, let filled = fingerprints()?.filling(keptFingerprints) else { return }
            do {
                try cache.replaceFingerprints(with: filled)
            } catch {
                StandardError.write("flowrun: warning: the compiled plan's fingerprints were not saved (\(error))\n")
            }
            return
        }
        do {
            try cache.store(
                pending.plan, sources: pending.sources.map { ($0.path, $0.contents) }, settings: settings, environment: processEnvironment,
                definitions: definitions(), fingerprints: fingerprints())
        } catch {
            StandardError.write("flowrun: warning: the compiled plan was not saved (\(error))\n")
        }
    }
}
