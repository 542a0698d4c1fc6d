import FlowFiles
import FlowModel
import Foundation

/// What a merge into an existing `to` has done, so that a failure part-way can be undone: each
/// file it replaces is first moved aside into a hidden folder beside the staging folder (the
/// same file system), and each path it fills is noted.
///
/// Undone in reverse order, the moved-aside files go back by rename, so they are the very
/// files that were there (contents, mode, times, links), and what the merge added is removed.
final class MergeJournal {
    private enum Step {
        /// The archive's item moved to `path`, where nothing was.
        case added(path: BytePath)
        /// What was at `path` moved to `aside`, then the archive's item moved to `path`.
        case replaced(path: BytePath, aside: BytePath)
        /// The folder at `path` had mode `old`, and was given the archive's.
        case modeSet(path: BytePath, old: mode_t)
    }

    private let folder: TemporaryFolder
    private var steps: [Step] = []
    private let written: WrittenFiles

    init(beside staging: String, written: WrittenFiles) throws(ActionFailure) {
        self.written = written
        let parent = staging.pathFolder
        do {
            folder = try TemporaryFolder(in: parent, for: "replaced", access: .owner)
        } catch {
            throw ActionFailure("cannot merge into an existing folder: \(error.description)")
        }
    }

    /// Moves `from` onto `to`, keeping what was at `to` aside.
    func move(_ from: BytePath, _ to: BytePath) throws(ActionFailure) {
        let moving = FileTree.status(from)
        defer { if let moving { written.moved(moving, to: to) } }
        guard FileTree.status(to) != nil else {
            try StagingPlacement.rename(from, to)
            return steps.append(.added(path: to))
        }
        let aside = BytePath(folder.path + "/\(steps.count)")
        try StagingPlacement.rename(to, aside)
        // Noted before the next rename: if that fails, `undo` puts this file back.
        steps.append(.replaced(path: to, aside: aside))
        try StagingPlacement.rename(from, to)
    }

    /// Gives the existing folder `path` the mode `mode` of the archive's entry for it; `old` is
    /// put back by `undo`.
    func setMode(of path: BytePath, to mode: mode_t, from old: mode_t) throws(ActionFailure) {
        guard mode != old else { return }
        guard path.withCString({ chmod($0, mode) }) == 0 else {
            throw ActionFailure("cannot set the mode of '\(path.shown)': \(FileTree.errorText())")
        }
        steps.append(.modeSet(path: path, old: old))
    }

    /// Puts `to` back as it was and returns the failure to report: `error`, and if something
    /// could not be put back, where it was kept.
    func undo(after error: ActionFailure, at to: String) -> ActionFailure {
        var stuck = 0
        for step in steps.reversed() {
            switch step {
            case .added(let path):
                FileTree.remove(path)
            case .replaced(let path, let aside):
                FileTree.remove(path)
                if aside.withCString({ source in path.withCString { Foundation.rename(source, $0) } }) != 0 { stuck += 1 }
            case .modeSet(let path, let old):
                _ = path.withCString { chmod($0, old) }
            }
        }
        steps = []
        guard stuck > 0 else {
            finish()
            return error
        }
        // Kept under a name no later run sweeps away: these are the user's files.
        let kept = "\(to)-replaced-by-flowrun-\(UInt32.random(in: 0...UInt32.max))"
        _ = Foundation.rename(folder.path, kept)
        folder.release()
        return ActionFailure("\(error.reason); \(stuck) replaced files could not be put back in '\(to)': they are in '\(kept)'")
    }

    /// Drops what was kept aside: the merge is done (or wholly undone).
    func finish() {
        FileTree.remove(folder.path)
        folder.release()
    }
}
