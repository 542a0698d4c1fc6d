import ArgumentParser
import FlowLoading
import FlowModel
import Foundation

/// What the shell completes for FILE and TASK. The shell calls flowrun back with the words of
/// the line (ArgumentParser's `.custom`); a callback prints candidates or nothing, never an
/// error, and reads only the workflow file the line names (or the one `WorkflowFinder` finds).
enum WorkflowCompletion {
    /// FILE of `run` and `graph`: workflow files and folders, and, as a first word that is no
    /// path, the tasks of the file found from the current folder (or `-d DIR`): `flowrun run
    /// bu<TAB>` gives `build` as `task bu<TAB>` does.
    static let fileOrTask = CompletionKind.custom { words, index, prefix in
        let line = CommandLineWords(words, before: index)
        var candidates = workflowFiles(matching: prefix, in: prefix.isAbsolutePath ? nil : line.directory)
        if !prefix.contains("/"), let found = try? WorkflowFinder.find(from: line.directory) {
            candidates += taskIDs(in: found.path).filter { $0.hasPrefix(prefix) }
        }
        return forShell(candidates)
    }

    /// TASK: the ids of the file named earlier on the line, or of the file found when the first
    /// word is itself a task.
    static let task = CompletionKind.custom { words, index, prefix in
        let line = CommandLineWords(words, before: index)
        guard let first = line.positionals.first else { return [] }
        let named = line.directory.map { first.isAbsolutePath ? first : "\($0)/\(first)" } ?? first
        let isTask = first.isValidTaskReference && !first.hasSuffix(".yaml") && !first.hasSuffix(".yml") && !FileManager.default.fileExists(atPath: named)
        guard let file = isTask ? (try? WorkflowFinder.find(from: line.directory))?.path : named else { return [] }
        let already = Set(line.positionals)
        return forShell(taskIDs(in: file).filter { $0.hasPrefix(prefix) && !already.contains($0) })
    }

    /// zsh's script hands the candidates to `_describe`, which reads each as `NAME:DESCRIPTION`,
    /// so an included file's task `tools:gen` was offered as `tools`: for zsh a `:` (and `\`)
    /// is escaped, as ArgumentParser escapes the lists it writes into the script itself.
    static func forShell(_ candidates: [String], shell: CompletionShell? = CompletionShell.requesting) -> [String] {
        guard shell == .zsh else { return candidates }
        return candidates.map { $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ":", with: "\\:") }
    }

    /// Every task id the file declares, in file order, a matrix task's name before its
    /// combinations, then those of the files it includes (`NS:ID`); none when it cannot be read.
    static func taskIDs(in file: String) -> [String] {
        let loaded = WorkflowLoader.load(path: file)
        guard let workflow = loaded.workflow else { return loaded.declaredTaskIDs.filter(\.isValidTaskID) }
        var named: Set<String> = []
        return workflow.tasks.flatMap { task -> [String] in
            // An included file's tasks are `NS:ID`: a reference, not an id of this file's own.
            guard let open = task.id.firstIndex(of: "["), task.id.isValidTaskReference else { return task.id.isValidTaskReference ? [task.id] : [] }
            let name = String(task.id[..<open])
            return named.insert(name).inserted ? [name, task.id] : [task.id]
        }
    }

    /// `.yaml` and `.yml` files, and folders (with a `/`, to go on into), whose path starts with
    /// `prefix`; hidden ones only when the prefix asks for them, as shells do. With `-d DIR` a
    /// relative FILE is read from DIR, so it is completed from there.
    ///
    /// For bash, a folder comes without its `/`: the script registers with `-o filenames`, so
    /// readline adds the `/` itself, when it inserts the folder and when it lists it; one of
    /// ours too would list `sub//`, and make `sub//` of a word completed mid-line. zsh and
    /// fish add none, so they get it from here.
    static func workflowFiles(
        matching prefix: String, in directory: String? = nil, shell: CompletionShell? = CompletionShell.requesting
    ) -> [String] {
        // By bytes, as bash matches names: to String, `/` or `e` and a combining mark after it
        // are one Character, so `sub/\u{301}x` had no folder, and `cafe` was no start of `cafe\u{301}.yaml`.
        let slash = prefix.utf8.lastIndex(of: UInt8(ascii: "/"))
        let folder = slash.map { String(decoding: prefix.utf8[...$0], as: UTF8.self) } ?? ""
        let start = slash.map { String(decoding: prefix.utf8[prefix.utf8.index(after: $0)...], as: UTF8.self) } ?? prefix
        let base = directory.map { $0.hasSuffix("/") ? $0 : $0 + "/" } ?? ""
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: base + (folder.isEmpty ? "." : folder)) else { return [] }
        return names.sorted().compactMap { name in
            guard name.utf8.starts(with: start.utf8), name.utf8.first != UInt8(ascii: ".") || start.utf8.first == UInt8(ascii: ".") else { return nil }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: base + folder + name, isDirectory: &isDirectory) else { return nil }
            guard isDirectory.boolValue else { return name.hasSuffix(".yaml") || name.hasSuffix(".yml") ? folder + name : nil }
            // readline looks the word up from the shell's folder, not from `-d DIR`.
            let marked = shell == .bash && (base.isEmpty || isFolder(folder + name))
            return folder + name + (marked ? "" : "/")
        }
    }

    private static func isFolder(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
