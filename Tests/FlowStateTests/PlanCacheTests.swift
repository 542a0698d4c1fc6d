import FlowLoading
import FlowModel
import FlowPlanning
import Foundation
import Glibc
import Testing

@testable import FlowState

/// The compiled-plan cache: a kept plan is read back only while every file it was made from
/// (the workflow, its includes, its dotenv files) and every setting are as they were.
@Suite struct PlanCacheTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("plan-cache-\(UUID().uuidString)").path
    let settings = [UInt8](repeating: 7, count: 32)

    var workflowFile: String { base + "/flow.yaml" }
    var folder: StateFolder { StateFolder(path: base + "/.flowrun") }
    var cache: PlanCache { PlanCache(folder: folder, workflowFile: workflowFile) }

    static let workflow = """
        version: 1
        dotenv: [.env, "?local.env"]
        include: {lib: lib.yaml}
        tasks:
          a: {shell: echo "$GREETING", needs: ["lib:b"]}

        """
    static let library = """
        version: 1
        tasks:
          b: {shell: echo from-lib}

        """

    /// The files of `workflow` in a new folder with its state folder; the plan and the files it was made of.
    func project() throws -> (plan: Plan, sources: [(path: String, contents: [UInt8]?)]) {
        try folder.create()
        try write("flow.yaml", Self.workflow)
        try write("lib.yaml", Self.library)
        try write(".env", "GREETING=hello\n")
        return try load()
    }

    func load() throws -> (plan: Plan, sources: [(path: String, contents: [UInt8]?)]) {
        let loaded = WorkflowLoader.load(path: workflowFile)
        #expect(loaded.diagnostics.isEmpty, "\(loaded.diagnostics)")
        let workflow = try #require(loaded.workflow)
        let plan = try #require(try Planner.plan(workflow, options: PlanningOptions()).plan)
        return (plan, loaded.sources.map { ($0.path, $0.contents) })
    }

    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: base + "/" + name))
    }

    /// Rewrites `name` with `text` (of the same length), then sets its mtime back: only the
    /// contents (and the ctime, which no program can set) tell the change.
    func edit(_ name: String, _ text: String) throws {
        let path = base + "/" + name
        let before = try #require(LocalFileSystem().status(of: path))
        #expect(before.size == Int64(text.utf8.count))
        try write(name, text)
        let seconds = before.modifiedNanoseconds / 1_000_000_000
        var times = [
            timespec(tv_sec: Int(seconds), tv_nsec: Int(before.modifiedNanoseconds % 1_000_000_000)),
            timespec(tv_sec: Int(seconds), tv_nsec: Int(before.modifiedNanoseconds % 1_000_000_000)),
        ]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        let after = try #require(LocalFileSystem().status(of: path))
        #expect(after.size == before.size && after.modifiedNanoseconds == before.modifiedNanoseconds)
    }

    @Test func aKeptPlanIsReadBackWhileNothingChanged() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let (plan, sources) = try project()
        #expect(Set(sources.map(\.path)) == Set(["flow.yaml", ".env", "local.env", "lib.yaml"].map { base + "/" + $0 }))
        try cache.store(plan, sources: sources, settings: settings)
        let read = try #require(cache.plan(settings: settings))
        #expect(read.tasks.map(\.id) == ["lib:b", "a"])
        #expect(read.tasks[1].environment.contains(EnvironmentEntry(name: "GREETING", value: "hello")))
        #expect(read.compiled == plan.compiled)
    }

    /// A run's read leaves the workflow's tasks out; its planned tasks are those kept.
    @Test func aKeptPlanReadForARunHasItsTasksButNotTheWorkflows() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let (plan, sources) = try project()
        try cache.store(plan, sources: sources, settings: settings)
        let read = try #require(cache.kept(settings: settings, keepingFileTasks: false)?.plan)
        #expect(read.workflow.tasks.isEmpty && plan.workflow.tasks.count == 2)
        // Without the specs' inputs and outputs as written (`Plan(compiled:keepingFileTasks:)`).
        #expect(read.tasks.map(\.spec.id) == plan.tasks.map(\.spec.id) && read.tasks.map(\.spec.action) == plan.tasks.map(\.spec.action))
        #expect(read.tasks.map(\.spec.needs) == plan.tasks.map(\.spec.needs) && read.tasks.allSatisfy(\.spec.inputs.isEmpty))
        #expect(read.tasks.map(\.inputs) == plan.tasks.map(\.inputs) && read.tasks.map(\.outputs) == plan.tasks.map(\.outputs))
        #expect(read.tasks.map(\.environment) == plan.tasks.map(\.environment))
    }

    @Test func otherSettingsAreAnotherPlan() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let (plan, sources) = try project()
        try cache.store(plan, sources: sources, settings: settings)
        #expect(cache.plan(settings: [UInt8](repeating: 8, count: 32)) == nil)
    }

    @Test func anEditOfTheWorkflowIsSeenWhateverItsSizeAndMtime() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let (plan, sources) = try project()
        try cache.store(plan, sources: sources, settings: settings)
        try edit("flow.yaml", Self.workflow.replacingOccurrences(of: "a: {", with: "z: {"))
        #expect(cache.plan(settings: settings) == nil)
    }

    @Test func anEditOfAnIncludedFileIsSeen() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let (plan, sources) = try project()
        try cache.store(plan, sources: sources, settings: settings)
        try edit("lib.yaml", Self.library.replacingOccurrences(of: "from-lib", with: "from-LIB"))
        #expect(cache.plan(settings: settings) == nil)
    }

    @Test func anEditOfADotenvFileIsSeen() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let (plan, sources) = try project()
        try cache.store(plan, sources: sources, settings: settings)
        try edit(".env", "GREETING=jello\n")
        #expect(cache.plan(settings: settings) == nil)
    }

    @Test func anOptionalDotenvFileThatAppearsIsSeen() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let (plan, sources) = try project()
        try cache.store(plan, sources: sources, settings: settings)
        try write("local.env", "GREETING=local\n")
        #expect(cache.plan(settings: settings) == nil)
    }

    /// The plan was made from the bytes read: a file changed after they were read, and before
    /// the plan was kept, is not taken for the one read.
    @Test func aFileChangedWhilePlanningIsNotTakenForTheOneRead() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let (plan, sources) = try project()
        try write(".env", "GREETING=later\n")
        try cache.store(plan, sources: sources, settings: settings)
        #expect(cache.plan(settings: settings) == nil)
    }

    /// A file read for the plan and deleted before the plan was kept (by a task of the run, or
    /// by hand) is not taken for one that was never there: without it, the workflow plans
    /// differently (a missing include or dotenv file is an error).
    @Test func aFileDeletedAfterItWasReadIsNotTakenForOneThatWasMissing() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let (plan, sources) = try project()
        try FileManager.default.removeItem(atPath: base + "/lib.yaml")
        try cache.store(plan, sources: sources, settings: settings)
        #expect(cache.plan(settings: settings) == nil)
    }

    /// A dotenv path with `..` is read as the kernel resolves it (through a symlinked folder,
    /// `link/..` is the link target's parent), and the cache checks that same file.
    @Test func aDotenvFileReachedThroughASymlinkedFolderIsTheOneChecked() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: base + "/real/inner", withIntermediateDirectories: true)
        try folder.create()
        try FileManager.default.createSymbolicLink(atPath: base + "/link", withDestinationPath: base + "/real/inner")
        try write("real/shared.env", "GREETING=hello\n")
        try write("shared.env", "GREETING=other\n")
        let workflow = base + "/link/flow.yaml"
        try write("link/flow.yaml", "version: 1\ndotenv: [../shared.env]\ntasks:\n  a: {shell: echo \"$GREETING\"}\n")
        let loaded = WorkflowLoader.load(path: workflow)
        let decoded = try #require(loaded.workflow)
        let plan = try #require(try Planner.plan(decoded, options: PlanningOptions()).plan)
        #expect(plan.tasks[0].environment.contains(EnvironmentEntry(name: "GREETING", value: "hello")))
        let cache = PlanCache(folder: folder, workflowFile: workflow)
        try cache.store(plan, sources: loaded.sources.map { ($0.path, $0.contents) }, settings: settings)
        #expect(cache.plan(settings: settings) != nil)
        try write("real/shared.env", "GREETING=jello\n")
        #expect(cache.plan(settings: settings) == nil, "the file read changed")
    }

    /// The same for an optional dotenv file missing when the plan was made: the one that
    /// appears is the one the kernel finds at the path (`link/..` is the link target's parent).
    @Test func anOptionalDotenvFileReachedThroughASymlinkedFolderThatAppearsIsSeen() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: base + "/real/inner", withIntermediateDirectories: true)
        try folder.create()
        try FileManager.default.createSymbolicLink(atPath: base + "/link", withDestinationPath: base + "/real/inner")
        let workflow = base + "/link/flow.yaml"
        try write("link/flow.yaml", "version: 1\ndotenv: [\"?../local.env\"]\ntasks:\n  a: {shell: echo \"$GREETING\"}\n")
        let loaded = WorkflowLoader.load(path: workflow)
        let decoded = try #require(loaded.workflow)
        let plan = try #require(try Planner.plan(decoded, options: PlanningOptions()).plan)
        let cache = PlanCache(folder: folder, workflowFile: workflow)
        try cache.store(plan, sources: loaded.sources.map { ($0.path, $0.contents) }, settings: settings)
        #expect(cache.plan(settings: settings) != nil)
        try write("real/local.env", "GREETING=hello\n")
        #expect(WorkflowLoader.load(path: workflow).workflow?.dotenv == [EnvironmentEntry(name: "GREETING", value: "hello")])
        #expect(cache.plan(settings: settings) == nil, "the file looked for appeared")
    }

    /// A plan that took a secret value (here a token from the process environment, in a
    /// header) is not kept: the cache would hold the value in clear.
    @Test func aPlanThatTookASecretIsNotKept() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try folder.create()
        try write(
            "flow.yaml",
            """
            version: 1
            tasks:
              fetch: {download: {url: "https://example.com/a", to: a.bin, headers: {Authorization: "Bearer ${GITHUB_TOKEN}"}}}

            """)
        let loaded = WorkflowLoader.load(path: workflowFile)
        var options = PlanningOptions()
        options.processEnvironment = ["GITHUB_TOKEN": "ghp-s3cr3t"]
        let decoded = try #require(loaded.workflow)
        let plan = try #require(try Planner.plan(decoded, options: options).plan)
        try cache.store(plan, sources: loaded.sources.map { ($0.path, $0.contents) }, settings: settings)
        let kept = FileManager.default.contents(atPath: cache.path) ?? Data()
        #expect(kept.range(of: Data("ghp-s3cr3t".utf8)) == nil)
        #expect(cache.plan(settings: settings) == nil)
    }

    @Test func aDamagedOrCutShortCacheIsIgnoredAndWrittenAgain() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let (plan, sources) = try project()
        try cache.store(plan, sources: sources, settings: settings)
        let whole = try Data(contentsOf: URL(fileURLWithPath: cache.path))
        for offset in [0, 20, whole.count / 2, whole.count - 1] {
            var damaged = whole
            damaged[offset] ^= 0x20
            try damaged.write(to: URL(fileURLWithPath: cache.path))
            #expect(cache.plan(settings: settings) == nil, "a byte changed at \(offset)")
        }
        for length in [0, 10, whole.count / 2, whole.count - 1] {
            try whole.prefix(length).write(to: URL(fileURLWithPath: cache.path))
            #expect(cache.plan(settings: settings) == nil, "cut at \(length)")
        }
        try cache.store(plan, sources: sources, settings: settings)
        #expect(cache.plan(settings: settings) != nil)
    }

    /// The definition digests a run took are kept with its plan and read back as they were; a
    /// plan kept without them, or with another number of them, gives none (the run takes them).
    @Test func theDefinitionDigestsKeptWithAPlanAreReadBackWithIt() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let (plan, sources) = try project()
        let taken = DefinitionDigests.of(plan.tasks)
        try cache.store(plan, sources: sources, settings: settings, definitions: taken)
        let kept = try #require(cache.kept(settings: settings))
        let read = try #require(kept.definitions)
        #expect(read.items.map(\.definition) == taken.items.map(\.definition))
        #expect(read.items.map(\.environment) == taken.items.map(\.environment))
        #expect(Set(read.items.map(\.definition)).count == plan.tasks.count)

        try cache.store(plan, sources: sources, settings: settings)
        #expect(cache.kept(settings: settings)?.plan != nil)
        #expect(cache.kept(settings: settings)?.definitions == nil)
        try cache.store(plan, sources: sources, settings: settings, definitions: DefinitionDigests(Array(taken.items.dropLast())))
        #expect(cache.kept(settings: settings)?.plan != nil)
        #expect(cache.kept(settings: settings)?.definitions == nil)
    }

    /// The fingerprints that depend on the plan alone are kept with it and read back as they
    /// were (a task without one stays without); none, or another number of them, gives none.
    @Test func theFingerprintsKeptWithAPlanAreReadBackWithIt() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let (plan, sources) = try project()
        let entries: [(value: String, key: String)?] = plan.tasks.indices.map { index in
            index == 0 ? nil : (String(repeating: "0\(index % 10)", count: 32), String(repeating: "f\(index % 10)", count: 32))
        }
        try cache.store(plan, sources: sources, settings: settings, fingerprints: PlanFingerprints(entries))
        let read = try #require(cache.kept(settings: settings)?.fingerprints)
        #expect(plan.tasks.count > 1)
        for index in plan.tasks.indices {
            #expect(read.value(at: index) == entries[index]?.value)
            #expect(read.key(at: index) == entries[index]?.key)
        }

        try cache.store(plan, sources: sources, settings: settings)
        #expect(cache.kept(settings: settings)?.plan != nil)
        #expect(cache.kept(settings: settings)?.fingerprints == nil)
        try cache.store(plan, sources: sources, settings: settings, fingerprints: PlanFingerprints(Array(entries.dropLast())))
        #expect(cache.kept(settings: settings)?.plan != nil)
        #expect(cache.kept(settings: settings)?.fingerprints == nil)
    }

    /// A first run cut short kept the fingerprints of the tasks that had run by then; a later
    /// run of the kept plan took the others, which every run after it took again until the
    /// workflow changed (s38-dag: +35 K instructions a task). That run puts them in the cache,
    /// the plan and the definitions as they were, and what it did not take stays as kept.
    @Test func fingerprintsALaterRunTookAreKeptWithThePlanInPlaceOfFewer() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let (plan, sources) = try project()
        #expect(plan.tasks.count > 1)
        let all: [(value: String, key: String)?] = plan.tasks.indices.map { index in
            (String(repeating: "a\(index % 10)", count: 32), String(repeating: "f\(index % 10)", count: 32))
        }
        let definitions = DefinitionDigests.of(plan.tasks)
        let firstRun = all.indices.map { $0 == 1 ? all[$0] : nil }
        try cache.store(plan, sources: sources, settings: settings, definitions: definitions, fingerprints: PlanFingerprints(firstRun))
        let kept = try #require(cache.kept(settings: settings)?.fingerprints)
        #expect(!kept.isWhole)

        // The later run took every task's but the second's (it failed there, say).
        let laterRun = all.indices.map { $0 == 1 ? nil : all[$0] }
        let filled = try #require(PlanFingerprints(laterRun).filling(kept))
        #expect(filled.isWhole)
        try cache.replaceFingerprints(with: filled)

        let read = try #require(cache.kept(settings: settings))
        let fingerprints = try #require(read.fingerprints)
        for index in plan.tasks.indices {
            #expect(fingerprints.value(at: index) == all[index]?.value)
            #expect(fingerprints.key(at: index) == all[index]?.key)
        }
        #expect(read.plan.tasks.map(\.id) == plan.tasks.map(\.id))
        #expect(read.definitions?.items.map(\.definition) == definitions.items.map(\.definition))
        #expect(PlanFingerprints(laterRun).filling(fingerprints) == nil, "nothing more to add: the file is not written again")
    }

    @Test func aCacheOfAnotherVersionIsIgnored() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let (plan, sources) = try project()
        try cache.store(plan, sources: sources, settings: settings)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: cache.path))
        let versionOffset = "flowrun-plan\n".utf8.count
        #expect(bytes[versionOffset] == UInt8(PlanCache.version))
        bytes[versionOffset] += 1
        try bytes.write(to: URL(fileURLWithPath: cache.path))
        #expect(cache.plan(settings: settings) == nil)
    }

    @Test func nothingIsKeptWithoutAStateFolder() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let (plan, sources) = try project()
        try FileManager.default.removeItem(atPath: folder.path)
        try cache.store(plan, sources: sources, settings: settings)
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }

    @Test func theSettingsTellEveryOptionApart() {
        var options = PlanningOptions()
        let plain = PlanCache.settings(path: "flow.yaml", options: options, workingDirectory: "/w")
        #expect(PlanCache.settings(path: "flow.yaml", options: options, workingDirectory: "/w") == plain)
        #expect(PlanCache.settings(path: "./flow.yaml", options: options, workingDirectory: "/w") != plain)
        #expect(PlanCache.settings(path: "flow.yaml", options: options, workingDirectory: "/v") != plain)
        var changed: [PlanningOptions] = []
        options.targets = ["a"]
        changed.append(options)
        options.onlyTargets = true
        changed.append(options)
        options.taskArguments = ["x"]
        changed.append(options)
        options.environmentOverrides = [EnvironmentEntry(name: "A", value: "1")]
        changed.append(options)
        options.concurrency = 2
        changed.append(options)
        options.processorCount = 8
        changed.append(options)
        let all = [plain] + changed.map { PlanCache.settings(path: "flow.yaml", options: $0, workingDirectory: "/w") }
        #expect(Set(all).count == all.count)
        // The process environment is not among them: the key holds what the plan read of it.
        var environment = PlanningOptions()
        environment.processEnvironment = ["HOME": "/h", "OLDPWD": "/w/sub"]
        #expect(PlanCache.settings(path: "flow.yaml", options: environment, workingDirectory: "/w") == plain)
    }

    static let interpolating = """
        version: 1
        tasks:
          a: {shell: 'mkdir -p "$OUT"; echo a > "$OUT/a.txt"', outputs: ["${OUT}/a.txt", "$${LITERAL}/${MODE:-${FALLBACK}}.log"]}

        """

    /// The plan of `interpolating` with `environment` as the process's, kept with it.
    func keepInterpolating(_ environment: [String: String]) throws -> Plan {
        try folder.create()
        try write("flow.yaml", Self.interpolating)
        let loaded = WorkflowLoader.load(path: workflowFile)
        var options = PlanningOptions()
        options.processEnvironment = environment
        let workflow = try #require(loaded.workflow)
        let plan = try #require(try Planner.plan(workflow, options: options).plan)
        try cache.store(plan, sources: loaded.sources.map { ($0.path, $0.contents) }, settings: settings, environment: environment)
        return plan
    }

    /// A variable the workflow does not interpolate (`OLDPWD` after a `cd`, a shell's `_`, what
    /// valgrind or perf set) leaves the kept plan in use; one it does, set, changed or unset, does not.
    @Test func onlyTheVariablesTheWorkflowInterpolatesAreInTheKey() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let environment = ["OUT": "/o", "FALLBACK": "f", "OLDPWD": "/a", "_": "/usr/bin/flowrun"]
        let plan = try keepInterpolating(environment)
        #expect(plan.interpolatedNames == ["FALLBACK", "MODE", "OUT"])
        #expect(plan.tasks[0].outputs == ["/o/a.txt", base + "/${LITERAL}/f.log"])
        #expect(cache.plan(settings: settings, environment: environment)?.tasks[0].outputs == plan.tasks[0].outputs)
        var unrelated = environment
        unrelated["OLDPWD"] = "/b"
        unrelated["_"] = "/usr/bin/valgrind"
        unrelated["LD_PRELOAD"] = "vgpreload.so"
        unrelated["LITERAL"] = "x"
        #expect(cache.plan(settings: settings, environment: unrelated) != nil)
        for (name, value) in [("OUT", "/p"), ("OUT", nil), ("MODE", "release"), ("MODE", ""), ("FALLBACK", "g"), ("FALLBACK", nil)] {
            var changed = environment
            changed[name] = value
            #expect(cache.plan(settings: settings, environment: changed) == nil, "\(name)=\(value ?? "(unset)")")
        }
    }

    /// A secret-looking name the workflow reads with a default, unset when the plan was kept:
    /// set later, it is a secret to mask (`TaskResolver.maskedNames`), so the kept plan, made
    /// without it, is not used. (In the URL: a plan whose header reads a variable is not kept at all.)
    @Test func aSecretNameThatBecomesSetIsAnotherPlan() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try folder.create()
        try write(
            "flow.yaml",
            """
            version: 1
            tasks:
              fetch: {download: {url: "https://example.com/a?key=${API_TOKEN:-anonymous}", to: a.bin}}

            """)
        let loaded = WorkflowLoader.load(path: workflowFile)
        let workflow = try #require(loaded.workflow)
        let plan = try #require(try Planner.plan(workflow, options: PlanningOptions()).plan)
        #expect(!plan.tookSecrets)
        try cache.store(plan, sources: loaded.sources.map { ($0.path, $0.contents) }, settings: settings, environment: ["HOME": "/h"])
        #expect(cache.plan(settings: settings, environment: ["HOME": "/i"]) != nil)
        #expect(cache.plan(settings: settings, environment: ["HOME": "/h", "API_TOKEN": "s3cr3t"]) == nil)
    }

    /// A plan whose download header reads a variable, under any name (`GH` is not masked), is
    /// not kept: headers are never printed, and the cache would hold the value in clear. One
    /// whose headers are written out in the workflow is kept (the file holds them already).
    @Test func aPlanWhoseHeaderReadsAVariableIsNotKept() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try folder.create()
        for (header, kept) in [("Bearer ${GH}", false), ("Bearer ${GH:-anonymous}", false), ("text/plain", true), ("$${GH}", true)] {
            try write(
                "flow.yaml",
                """
                version: 1
                tasks:
                  fetch: {download: {url: "https://example.com/a", to: a.bin, headers: {Authorization: "\(header)"}}}

                """)
            let loaded = WorkflowLoader.load(path: workflowFile)
            var options = PlanningOptions()
            options.processEnvironment = ["GH": "gh-plain-value"]
            let workflow = try #require(loaded.workflow)
            let plan = try #require(try Planner.plan(workflow, options: options).plan)
            #expect(!plan.tookSecrets)
            try? FileManager.default.removeItem(atPath: cache.path)
            try cache.store(plan, sources: loaded.sources.map { ($0.path, $0.contents) }, settings: settings, environment: options.processEnvironment)
            let bytes = FileManager.default.contents(atPath: cache.path) ?? Data()
            #expect(bytes.range(of: Data("gh-plain-value".utf8)) == nil, "\(header)")
            #expect((cache.plan(settings: settings, environment: options.processEnvironment) != nil) == kept, "\(header)")
        }
    }
}
