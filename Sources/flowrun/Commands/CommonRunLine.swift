import ArgumentParser

/// `flowrun [run] [-j N] [--events MODE] [--no-record] [--keep-going] FILE`: the command line of
/// a scripted run (CI, bench/), read without ArgumentParser, whose reading of `RunCommand`
/// (reflection over its two dozen options, a scan of the binary's conformance records for each)
/// is about 32 M instructions, half of a one-task run's, paid before the first task starts
/// (issue 23). The result is the `RunCommand` ArgumentParser makes of the same words
/// (`CommonRunLineTests` compares the two); anything else (help, a misspelling, any other option,
/// a value it would refuse, a repeated option) gives nil, and ArgumentParser reads the line as
/// before, messages and exit status included.
enum CommonRunLine {
    /// Words that ArgumentParser reads as a command, not as FILE.
    private static let commands: Set<String> = Set(Flowrun.configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"])

    static func parse(_ words: [String]) -> RunCommand? {
        var rest = words[...]
        if rest.first == "run" { rest = rest.dropFirst() }
        var file: String?
        var concurrency: Int?
        var events: EventsMode?
        var noRecord = false
        var keepGoing = false
        while let word = rest.popFirst() {
            switch word {
            case "-j", "--concurrency":
                guard concurrency == nil, let value = rest.popFirst(), let count = count(value) else { return nil }
                concurrency = count
            case "--events":
                guard events == nil, let value = rest.popFirst(), let mode = EventsMode(rawValue: value) else { return nil }
                events = mode
            case "--no-record":
                guard !noRecord else { return nil }
                noRecord = true
            case "--keep-going":
                guard !keepGoing else { return nil }
                keepGoing = true
            default:
                if word.hasPrefix("--concurrency=") || (word.hasPrefix("-j") && !word.hasPrefix("--")) {
                    let value = word.hasPrefix("-j") ? word.dropFirst(2) : word.dropFirst("--concurrency=".count)
                    guard concurrency == nil, let count = count(value) else { return nil }
                    concurrency = count
                } else if word.hasPrefix("--events=") {
                    guard events == nil, let mode = EventsMode(rawValue: String(word.dropFirst("--events=".count))) else { return nil }
                    events = mode
                } else {
                    // One FILE, no task names: anything else is ArgumentParser's to read.
                    guard file == nil, !word.isEmpty, !word.hasPrefix("-"), !commands.contains(word) else { return nil }
                    file = word
                }
            }
        }
        guard let file else { return nil }
        return command(file: file, concurrency: concurrency, events: events, noRecord: noRecord, keepGoing: keepGoing)
    }

    /// A count as ArgumentParser reads an `Int`, for the digits alone (no sign, no space).
    private static func count(_ text: some StringProtocol) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(text)
    }

    /// Every option set, to its default unless given: an option left unset would stop the run
    /// when read. Nil if the command refuses the values (`validate()`): ArgumentParser says why.
    private static func command(file: String, concurrency: Int?, events: EventsMode?, noRecord: Bool, keepGoing: Bool) -> RunCommand? {
        var workflow = WorkflowOptions()
        workflow.assignments = []
        workflow.directory = nil
        var recording = RecordOptions()
        recording.noRecord = noRecord
        recording.recordOutputCap = ByteCount(RecordOptions.defaultOutputCap)
        recording.keepRuns = RecordOptions.defaultKeptRuns
        recording.noWait = false
        var report = RunReportOptions()
        report.reportHtml = nil
        report.trace = nil
        var command = RunCommand()
        command.file = file
        command.tasks = []
        command.only = []
        command.noRetry = false
        command.dryRun = false
        command.concurrency = concurrency
        command.workflow = workflow
        command.recording = recording
        command.keepGoing = keepGoing
        command.grace = 10
        command.events = events
        command.eventsFile = nil
        command.junit = nil
        command.report = report
        command.noColor = false
        command.summary = .auto
        command.force = false
        command.resume = false
        command.resumeFrom = nil
        command.verbose = false
        command.engineOnly = false
        do {
            try command.workflow.validate()
            try command.recording.validate()
            try command.validate()
        } catch {
            return nil
        }
        return command
    }
}
