import ArgumentParser
import FlowConsole
import FlowLoading
import FlowModel
import FlowPlanning
import Foundation

/// Loads, checks and plans one workflow file: the path every command shares up to the plan.
enum WorkflowInput {
    enum Outcome {
        case planned(Plan)
        /// The file has problems; they are already printed.
        case invalid
    }

    /// Loads and plans `path`, printing every diagnostic to stderr. With a `cache`, the plan
    /// kept there when the file did not change; a plan made with no diagnostic at all is noted
    /// to keep there for the next run (one with warnings is not: they are shown each time).
    static func plan(_ path: String, options: PlanningOptions, cache: CachedPlan? = nil) throws -> Outcome {
        if let plan = cache?.plan() {
            KeptUntilExit.keep(plan)
            return .planned(plan)
        }
        var loaded = WorkflowLoader.load(path: path, environment: options.processEnvironment)
        let sources = cache == nil ? [] : loaded.sources
        loaded.sources = []
        KeptUntilExit.keep(loaded)
        var diagnostics = loaded.diagnostics
        var plan: Plan?
        if let workflow = loaded.workflow {
            // Usually every declared task was decoded: then none is declared beyond the
            // workflow's own tasks, and 100,000 ids need not be hashed into a set.
            let declared = loaded.declaredTaskIDs.count == workflow.tasks.count ? [] : Set(loaded.declaredTaskIDs)
            do {
                let result = try Planner.plan(workflow, options: options, alsoDeclared: declared)
                diagnostics += result.diagnostics
                plan = result.plan
            } catch PlanningError.unknownTarget(let name, let suggestion) where !loaded.diagnostics.hasErrors {
                var message = "no task named '\(name)' in \(path)"
                if let suggestion { message += "; did you mean '\(suggestion)'?" }
                throw CommandFailure(message)
            } catch PlanningError.argumentsWithoutCommand(let task, let kind) where !loaded.diagnostics.hasErrors {
                guard let task else {
                    throw CommandFailure("arguments after '--' go to the tasks named before it, and none is named: flowrun FILE TASK -- ARGS")
                }
                throw CommandFailure(
                    "task '\(task)' is a \(kind ?? "") task: arguments after '--' go to shell tasks only; name those (flowrun FILE TASK... -- ARGS)")
            }
        }
        if !diagnostics.isEmpty {  // errors, or warnings only (the file still runs)
            let environment = ProcessInfo.processInfo.environment
            let printer = DiagnosticPrinter(
                style: Style(enabled: Terminal.usesColor(2, environment: environment)), githubAnnotations: PlainLog.isGitHubActions(environment))
            StandardError.write(printer.render(diagnostics))
        }
        guard !diagnostics.hasErrors, let plan else { return .invalid }
        if diagnostics.isEmpty { cache?.made(plan, sources: sources) }
        KeptUntilExit.keep(plan)
        return .planned(plan)
    }
}
