import Testing

@testable import FlowActions

/// The `envp` a child gets: flowrun's environment in name order without the names the task
/// sets, then the task's variables, the last of a name winning; checked in memory, for a few
/// overrides (scanned) and for many (a set), which must agree.
@Suite struct ChildEnvironmentTests {
    static func entries(_ environment: ChildEnvironment, _ overrides: [(name: String, value: String)]) -> [String] {
        environment.withEntries(overrides: overrides) { envp in
            var strings: [String] = []
            var index = 0
            while let entry = envp[index] {
                strings.append(String(cString: entry))
                index += 1
            }
            return strings
        }
    }

    @Test func theLastOfANameWinsAndReplacesTheBase() {
        let environment = ChildEnvironment(["PATH": "/bin", "HOME": "/root", "B": "base"])
        let overrides: [(name: String, value: String)] = [("B", "first"), ("C", ""), ("B", "last"), ("FLOWRUN_TASK", "t1")]
        #expect(Self.entries(environment, overrides) == ["HOME=/root", "PATH=/bin", "FLOWRUN_TASK=t1", "B=last", "C="])
    }

    @Test func noOverridesIsTheBaseInNameOrder() {
        let environment = ChildEnvironment(["Z": "1", "A": "2"])
        #expect(Self.entries(environment, []) == ["A=2", "Z=1"])
    }

    @Test func manyOverridesAreDecidedAsFewAre() {
        let environment = ChildEnvironment(["V3": "base", "KEEP": "yes"])
        let count = ChildEnvironment.overridesScanned * 2
        // Every name twice: the second of each (its value ends in "b") is the one kept.
        let overrides: [(name: String, value: String)] = (0..<count).map { ("V\($0 % (count / 2))", "\($0 < count / 2 ? "a" : "b")\($0)") }
        let entries = Self.entries(environment, overrides)
        let expected = ["KEEP=yes"] + (0..<count / 2).reversed().map { "V\($0)=b\($0 + count / 2)" }
        #expect(entries == expected)
        // The same names and values, few enough to be scanned, give the same order.
        let few = Array(overrides.suffix(ChildEnvironment.overridesScanned))
        #expect(Self.entries(environment, few) == expected)
    }

    static func taskEntries(_ environment: ChildEnvironment, folder: String, task: String) -> [String] {
        environment.withTaskEntries(workflowDirectory: folder, task: task) { strings(of: $0) }
    }

    static func strings(of envp: UnsafePointer<UnsafeMutablePointer<CChar>?>) -> [String] {
        var strings: [String] = []
        var index = 0
        while let entry = envp[index] {
            strings.append(String(cString: entry))
            index += 1
        }
        return strings
    }

    /// A task without env of its own gets what the overrides of flowrun's two variables give,
    /// in the same order, spawn after spawn, when the folder changes, and with flowrun's own
    /// environment holding the two names already (a flowrun run from a task).
    @Test func aTaskWithoutEnvGetsWhatFlowrunsTwoOverridesGive() {
        let environment = ChildEnvironment(["PATH": "/bin", "FLOWRUN_TASK": "outer", "FLOWRUN_WORKFLOW_DIR": "/outer", "ZZ": "z"])
        for (folder, task) in [("/w", "t1"), ("/w", "second"), ("/other", "t1"), ("/w", "")] {
            let overrides: [(name: String, value: String)] = [("FLOWRUN_WORKFLOW_DIR", folder), ("FLOWRUN_TASK", task)]
            #expect(Self.taskEntries(environment, folder: folder, task: task) == Self.entries(environment, overrides))
        }
        #expect(Self.taskEntries(environment, folder: "/w", task: "t9") == ["PATH=/bin", "ZZ=z", "FLOWRUN_TASK=t9", "FLOWRUN_WORKFLOW_DIR=/w"])
    }

    /// A spawn made while another holds the kept entries (from inside it here) gets its own.
    @Test func aSpawnWhileTheKeptEntriesAreInUseGetsItsOwn() {
        let environment = ChildEnvironment(["HOME": "/root"])
        let (outer, inner) = environment.withTaskEntries(workflowDirectory: "/w", task: "a") { envp in
            let inner = Self.taskEntries(environment, folder: "/v", task: "b")
            return (Self.strings(of: envp), inner)
        }
        #expect(outer == ["HOME=/root", "FLOWRUN_TASK=a", "FLOWRUN_WORKFLOW_DIR=/w"])
        #expect(inner == ["HOME=/root", "FLOWRUN_TASK=b", "FLOWRUN_WORKFLOW_DIR=/v"])
        #expect(Self.taskEntries(environment, folder: "/w", task: "c") == ["HOME=/root", "FLOWRUN_TASK=c", "FLOWRUN_WORKFLOW_DIR=/w"])
    }

    @Test func valuesKeepTheirBytes() {
        let environment = ChildEnvironment([:])
        #expect(Self.entries(environment, [("NAME", "a=b c\u{e9}\u{1F600}")]) == ["NAME=a=b c\u{e9}\u{1F600}"])
    }
}
