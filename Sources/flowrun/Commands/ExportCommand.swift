import ArgumentParser
import FlowConsole
import FlowExport
import FlowFiles
import FlowModel
import FlowPlanning
import FlowReport
import Foundation

/// `flowrun export FILE --to github|argo [-o PATH]`
struct ExportCommand: ParsableCommand {
    enum Engine: String, ExpressibleByArgument, CaseIterable {
        case github, argo
    }

    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the workflow for GitHub Actions or Argo Workflows; what does not carry over is named on stderr.",
        discussion: """
            Each task becomes a job (GitHub) or a DAG task (Argo) that runs `flowrun run --only \
            TASK`, its needs taken as done. Paths in the export are relative to the current \
            folder: run it from the repository's root.
            """
    )

    @Argument(help: ArgumentHelp("The workflow file.", valueName: "FILE"), completion: .file(extensions: ["yaml", "yml"]))
    var file: String?

    @Option(help: ArgumentHelp("The engine: github or argo.", valueName: "ENGINE"))
    var to: Engine

    @Option(
        name: [.customShort("o"), .customLong("output")], help: ArgumentHelp("Write the export here (default: standard output).", valueName: "PATH"),
        completion: .file())
    var output: String?

    @Flag(help: "Print what maps and what does not; write nothing.")
    var dryRun = false

    @Option(help: ArgumentHelp("GitHub: a label of the runner of every job (repeatable; default: ubuntu-latest).", valueName: "LABEL"))
    var runsOn: [String] = []

    @Option(help: ArgumentHelp("GitHub: the shell command of each job's 'Install flowrun' step.", valueName: "COMMAND"))
    var install: String?

    @Option(help: ArgumentHelp("Argo (required): the image with flowrun, the project and the tasks' tools.", valueName: "IMAGE"))
    var image: String?

    @Flag(help: "Argo: a WorkflowTemplate rather than a Workflow.")
    var template = false

    @Option(help: ArgumentHelp("Argo: the size of the shared workspace volume.", valueName: "SIZE"))
    var volumeSize = "1Gi"

    @Option(help: ArgumentHelp("Argo: the folder of the image that holds the project (default: its working directory).", valueName: "DIR"))
    var source: String?

    @OptionGroup var workflow: WorkflowOptions

    func validate() throws {
        if to == .argo, image?.isEmpty ?? true { throw ValidationError("--to argo needs --image IMAGE: the image with flowrun and the tasks' tools") }
        if to == .github, image != nil || template || source != nil { throw ValidationError("--image, --template and --source are for --to argo") }
        if to == .argo, install != nil { throw ValidationError("--install is for --to github; the Argo image has flowrun") }
    }

    func run() throws {
        let (file, _) = try workflow.locate(file: file, tasks: [])
        guard case .planned(let plan) = try WorkflowInput.plan(file, options: workflow.planningOptions()) else { throw ExitStatus.invalid }
        let root = FileManager.default.currentDirectoryPath
        var options = ExportOptions(workflowPath: Self.relative(file, to: root), root: root)
        options.extraArguments = workflow.assignments.flatMap { ["--env", "\($0.entry.name)=\($0.entry.value)"] }
        if !runsOn.isEmpty { options.runsOn = runsOn }
        options.installCommand = install
        options.image = image ?? ""
        options.workflowTemplate = template
        options.volumeSize = volumeSize
        options.source = source
        var export = to == .github ? GitHubExport.export(plan, options: options) : ArgoExport.export(plan, options: options)
        if options.workflowPath.isAbsolutePath {
            export.notCarried.append("\(file) is outside the current folder: the export names it by its absolute path; export from the repository's root")
        }
        for name in workflow.assignments.map(\.entry.name) where SecretName.looksSecret(name) {
            export.notCarried.append("--env \(name): its value is written into the export in clear; pass it as a secret of the engine instead")
        }
        // Argo substitutes each `{{...}}` of a template, args included, and has no escape for it.
        for entry in workflow.assignments.map(\.entry) where to == .argo && entry.value.contains("{{") {
            export.notCarried.append("--env \(entry.name): its value holds '{{', which Argo replaces with its own variables in the args (it has no escape)")
        }
        if dryRun {
            var text = "flowrun export --to \(to.rawValue) \(options.workflowPath) (dry run: nothing written)\nmaps:\n"
            text += export.mapped.map { "  \($0)\n" }.joined()
            text += "does not carry over:\n" + (export.notCarried.isEmpty ? "  (nothing)\n" : export.notCarried.map { "  \($0)\n" }.joined())
            print(text, terminator: "")
            return
        }
        // As `run --junit FILE` is refused: the export never replaces the workflow it came from.
        try OutputPaths.refuseOverlaps(workflow: file, eventsFile: nil, junit: nil, others: [("-o", output)])
        // A missing folder is refused, as `curl -o` and `tar -f` refuse it (`--create-dirs` is
        // curl's opt-in), and as `report` and `run --junit` do: a usage error, nothing made.
        if let output { try OutputPaths.refuseUnwritable([output]) }
        for note in export.notCarried {
            StandardError.write("flowrun: not carried over: \(VisibleText.escaped(note))\n")
        }
        guard let output else {
            print(export.text, terminator: "")
            return
        }
        // A FIFO or a device (`-o /dev/stdout`) is written into, as `report` does: a file renamed
        // over it would replace it.
        var status = stat()
        if stat(output, &status) == 0, status.st_mode & S_IFMT == S_IFCHR || status.st_mode & S_IFMT == S_IFIFO {
            do throws(WriteFailure) {
                try ReportFile.write(export.text, to: output)
            } catch {
                throw CommandFailure("cannot write \(output): \(String(cString: strerror(error.code)))", status: ExitStatus.forCommandWriteFailure(error))
            }
            return
        }
        // Whole or not at all (a reader, or a push, never sees half a workflow); through a
        // symlink, its target is replaced and the link kept.
        do throws(FileError) {
            try AtomicFile.write(export.text, to: ReportFile.destination(of: output), access: .shared)
        } catch {
            throw CommandFailure(
                "cannot write \(output): \(String(cString: strerror(error.code)))",
                status: ExitStatus.forCommandWriteFailure(WriteFailure(output: output, code: error.code)))
        }
    }

    /// `file` as the exported jobs name it: relative to the folder the export is made in.
    static func relative(_ file: String, to root: String) -> String {
        let absolute = file.isAbsolutePath ? file : root + "/" + file
        let standardized = URL(fileURLWithPath: absolute).standardizedFileURL.path
        return PathNesting.relative(standardized, to: root) ?? standardized
    }
}
