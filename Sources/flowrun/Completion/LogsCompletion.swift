import ArgumentParser

/// What the shell completes for `logs [RUN] [TASK...]`: as the first word, the recorded runs'
/// ids, `last` and the last run's tasks (a first word may be a task); after a run, that run's
/// tasks, skipping those already named. Read from the records `logs` itself would read.
enum LogsCompletion {
    static let runOrTask = CompletionKind.custom { words, index, prefix in
        let line = CommandLineWords(words, before: index)
        let records = RecordedRuns(file: line.file).records().records
        let candidates: [String]
        if let first = line.positionals.first {
            let run = (try? LogsCommand.find(first, in: records)) ?? nil
            let tasks = (run ?? records.first)?.plan().map(\.task) ?? []
            let already = Set(line.positionals)
            candidates = tasks.filter { !already.contains($0) }
        } else {
            candidates = records.map(\.run) + ["last"] + (records.first?.plan().map(\.task) ?? [])
        }
        return WorkflowCompletion.forShell(candidates.filter { $0.hasPrefix(prefix) })
    }
}
