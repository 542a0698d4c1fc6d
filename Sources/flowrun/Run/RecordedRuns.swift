import FlowState
import Foundation

/// The run records `flowrun runs` and `flowrun logs` read: those of one workflow file (the state
/// folder beside it), or, with no file, every record in `.flowrun/` of the current folder (or
/// `$FLOWRUN_STATE_DIR`), or, when it has none, beside the flowrun.yaml found above.
struct RecordedRuns {
    let store: RunRecordStore
    /// The workflow file's absolute path, or nil for every workflow of the folder.
    let workflowFile: String?

    init(file: String?, environment: [String: String] = ProcessInfo.processInfo.environment) {
        if let file {
            let path = URL(fileURLWithPath: file).standardizedFileURL.path
            store = RunRecordStore(folder: StateFolder(forWorkflowAt: path, environment: environment))
            workflowFile = path
        } else {
            let here = FileManager.default.currentDirectoryPath
            var folder = StateFolder(forWorkflowAt: here + "/flowrun.yaml", environment: environment)
            // With no records here, those of the flowrun.yaml a run would find above (as `flowrun`
            // in a subfolder recorded them there).
            if !FileManager.default.fileExists(atPath: folder.path), let found = try? WorkflowFinder.find(from: nil), !found.isInStartingFolder {
                folder = StateFolder(forWorkflowAt: found.path, environment: environment)
            }
            store = RunRecordStore(folder: folder)
            workflowFile = nil
        }
    }

    /// The readable records, newest first; each unreadable one is reported on stderr once, and
    /// the runs of those a newer flowrun wrote are returned too.
    func records() -> (records: [RunRecord], newer: [(run: String, problem: RecordProblem)]) {
        let (records, problems) = store.records(forWorkflow: workflowFile)
        var newer: [(run: String, problem: RecordProblem)] = []
        for problem in problems {
            RecordOptions.warn(problem.description)
            if case .newer = problem {
                newer.append((((problem.path as NSString).lastPathComponent as NSString).deletingPathExtension, problem))
            }
        }
        return (records, newer)
    }

    /// The pid of the flowrun recording `record` now, if one is: `record` is the newest record
    /// of the state folder (of any workflow file in it), and a process holds the folder's lock
    /// (only a recording run takes it, one at a time). Such a record has no end yet, as an
    /// interrupted run's has none, but the run is not over. The one place `runs`, `logs` and
    /// `report` ask it.
    func recordingProcess(of record: RunRecord) -> Int32? {
        guard let pid = StateLock.holdingProcess(of: store.folder), let newest = store.recordPaths(forWorkflow: nil).last,
            ((newest as NSString).lastPathComponent as NSString).deletingPathExtension == record.run
        else { return nil }
        return pid
    }

    /// Whether `record` is of the run a flowrun is recording now (`recordingProcess(of:)`).
    func isRunning(_ record: RunRecord) -> Bool {
        recordingProcess(of: record) != nil
    }

    /// The summary of `record`, `running` for the run being recorded now. Only a record with no
    /// end is asked about (the lock looked at): one a run is being recorded in, or one a killed
    /// run left.
    func summary(of record: RunRecord) -> RunSummary {
        var summary = record.summary()
        if summary.result == .interrupted, isRunning(record) { summary.result = .running }
        return summary
    }

    /// What to say when there is no record.
    var none: String {
        guard let workflowFile else {
            return "no run recorded in \(store.folder.path) (records are kept beside each workflow: name it with -f FILE)"
        }
        return "no run recorded in \(store.folder.path) for \(workflowFile)"
    }
}
