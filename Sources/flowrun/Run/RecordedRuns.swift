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

    /// The run a flowrun is recording now, and that flowrun's pid: the newest record of the
    /// state folder (of any workflow file in it), while a process holds the folder's lock (only
    /// a recording run takes it, one at a time). Its record has no end yet, as an interrupted
    /// run's has none, but the run is not over.
    func running() -> (run: String, pid: Int32)? {
        guard let pid = StateLock.holder(of: store.folder), let newest = store.recordPaths(forWorkflow: nil).last else { return nil }
        return (((newest as NSString).lastPathComponent as NSString).deletingPathExtension, pid)
    }

    /// The summary of `record`, `running` for the run being recorded now.
    func summary(of record: RunRecord, running: (run: String, pid: Int32)?) -> RunSummary {
        var summary = record.summary()
        if summary.result == .interrupted, record.run == running?.run { summary.result = .running }
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
