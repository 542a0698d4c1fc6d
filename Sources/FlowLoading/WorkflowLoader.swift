import FlowModel
import Foundation

/// A workflow file after loading: the workflow if it could be described, and every problem found.
package struct LoadedWorkflow: Sendable {
    package var workflow: Workflow?
    package var diagnostics: [Diagnostic]
    /// Every key under `tasks`, including tasks too broken to decode (needing one is no extra error).
    package var declaredTaskIDs: [TaskID] = []
    /// Every file read or looked for, in the order read (the workflow first), with its bytes.
    package var sources: [SourceFile] = []
}

/// Reads a workflow file and decodes it: the entry point of the loading layer.
package enum WorkflowLoader {
    /// Loads `path`; `label` (by default `path`) is how diagnostics name the file. `chain`: the
    /// absolute paths of the files that include this one, and this one (`Includes`).
    /// `environment`: what `${NAME}` in a dotenv file sees after the keys set before it.
    package static func load(
        path: String, limits: YAMLLimits = YAMLLimits(), label: String? = nil, chain: [String] = [],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> LoadedWorkflow {
        let url = URL(fileURLWithPath: path)
        let label = label ?? path
        let wholeFile = SourceLocation(file: label, line: 0, column: 0)
        let bytes: [UInt8]
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            let data = try handle.read(upToCount: limits.maxFileBytes + 1) ?? Data()
            if data.count > limits.maxFileBytes {
                // A device or a pipe has no size to tell (`/dev/zero` would be "0 bytes").
                let attributes = try? FileManager.default.attributesOfItem(atPath: path)
                let isRegular = attributes?[.type] as? FileAttributeType == .typeRegular
                let size = isRegular ? attributes?[.size] as? Int : nil
                return LoadedWorkflow(diagnostics: [Diagnostic(.fileTooLarge(bytes: size, limit: limits.maxFileBytes), at: wholeFile)])
            }
            bytes = [UInt8](data)
        } catch {
            return LoadedWorkflow(diagnostics: [Diagnostic(.cannotRead(describe(error, path: path)), at: wholeFile)])
        }
        let directory = url.deletingLastPathComponent().standardizedFileURL.path
        let stem = url.deletingPathExtension().lastPathComponent
        var loaded = decode(
            bytes, file: label, directory: directory, defaultName: stem, limits: limits,
            chain: chain.isEmpty ? [url.standardizedFileURL.path] : chain, environment: environment)
        // As read (`url.path` keeps a `..`, which the kernel resolves after any symlink).
        loaded.sources.insert(SourceFile(path: url.path, contents: bytes), at: 0)
        return loaded
    }

    /// Decodes YAML text already in memory.
    package static func decode(
        _ bytes: [UInt8], file: String, directory: String, defaultName: String, limits: YAMLLimits = YAMLLimits(),
        chain: [String] = [], environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> LoadedWorkflow {
        var document: YAMLDocument
        do {
            document = try YAMLLoader.load(bytes, file: file, limits: limits)
        } catch let error as YAMLError {
            return LoadedWorkflow(diagnostics: [error.diagnostic])
        } catch {
            return LoadedWorkflow(diagnostics: [Diagnostic(.cannotRead("\(error)"), at: SourceLocation(file: file, line: 0, column: 0))])
        }
        var decoder = WorkflowDecoder(file: file)
        var workflow = decoder.decode(document.root, directory: directory, defaultName: defaultName)
        var dotenvProblems: [Diagnostic] = []
        var sources: [SourceFile] = []
        if let files = workflow?.dotenvFiles, !files.isEmpty {
            var scope = DotenvScope(environment: environment)
            let (entries, problems) = Dotenv.read(files, directory: directory, sources: &sources, scope: &scope)
            workflow?.dotenv = entries
            workflow?.dotenvEnvironmentNames = scope.environmentNames.sorted()
            workflow?.dotenvSecretNames = scope.secretNames.sorted()
            dotenvProblems = problems
        }
        var declared = decoder.declaredTaskIDs
        if var included = workflow.take() {
            if !included.includes.isEmpty {
                dotenvProblems += Includes.resolve(
                    &included, declared: &declared, sources: &sources, chain: chain, limits: limits, environment: environment)
                // A need on an included matrix task's name means each of its combinations too.
                included.matrixCombinations = WorkflowDecoder.expandMatrixNeeds(of: &included.tasks)
            }
            workflow = included
        }
        // One error for one mistake: `enabled: !!bool yes` is the tag's error, not also "expected
        // true or false ... found a string" at the same place.
        let decoded = decoder.diagnostics.filter { $0.severity != .error || !document.refusedTags.contains($0.location) }
        let loaded = LoadedWorkflow(
            workflow: workflow, diagnostics: document.diagnostics + decoded + dotenvProblems,
            declaredTaskIDs: declared, sources: sources)
        // Nothing needs the tree any more (the workflow's strings may share storage with its
        // scalars, which reference counting keeps alive), so a large one is handed over whole
        // and freed on the idle core while the caller plans.
        if (document.root?.weight ?? 0) >= ReleasedInBackground.minimumNodes {
            ReleasedInBackground.release(document.root.take()!)
        }
        return loaded
    }

    /// "No such file or directory", not Foundation's long-winded error text.
    private static func describe(_ error: any Error, path: String) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if nsError.domain == NSCocoaErrorDomain {
            switch nsError.code {
            case NSFileNoSuchFileError, NSFileReadNoSuchFileError: return "no such file"
            case NSFileReadNoPermissionError: return "permission denied"
            default: break
            }
        }
        return nsError.localizedDescription
    }
}
