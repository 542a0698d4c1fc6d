import FlowLoading
import FlowModel
import Testing

/// `matrix:` expands a task into one task per combination, as GitHub Actions does.
@Suite struct MatrixTests {
    func tasks(_ text: String) throws -> (ids: [String], workflow: Workflow) {
        let loaded = WorkflowLoader.decode(Array(text.utf8), file: "flow.yaml", directory: "/work", defaultName: "w")
        #expect(!loaded.diagnostics.hasErrors, "\(loaded.diagnostics)")
        let workflow = try #require(loaded.workflow)
        return (workflow.tasks.map(\.id), workflow)
    }

    @Test func combinationsComeInKeyOrderWithTheLastKeyFastest() throws {
        let (ids, _) = try tasks("version: 1\ntasks:\n  t:\n    matrix: {os: [linux, mac], py: ['3.11', '3.12']}\n    shell: 'true'\n")
        #expect(ids == ["t[linux,3.11]", "t[linux,3.12]", "t[mac,3.11]", "t[mac,3.12]"])
    }

    /// GitHub's documented example: exclude first; an include extends the combinations it agrees
    /// with, and one that agrees with none is a combination of its own, never extended later.
    @Test func excludeThenIncludeAsGitHubActionsDoes() throws {
        let (ids, workflow) = try tasks(
            """
            version: 1
            tasks:
              t:
                matrix:
                  fruit: [apple, pear]
                  animal: [cat, dog]
                  exclude: [{fruit: pear, animal: dog}]
                  include:
                    - {color: green}
                    - {color: pink, animal: cat}
                    - {fruit: apple, shape: circle}
                    - {fruit: banana, animal: dog}
                shell: 'true'
            """)
        #expect(ids == ["t[apple,cat]", "t[apple,dog]", "t[pear,cat]", "t[banana,dog]"])
        func env(_ id: String) -> [String] {
            workflow.tasks.first { $0.id == id }!.env.map { "\($0.name)=\($0.value)" }
        }
        #expect(env("t[apple,cat]") == ["MATRIX_FRUIT=apple", "MATRIX_ANIMAL=cat", "MATRIX_COLOR=pink", "MATRIX_SHAPE=circle"])
        #expect(env("t[apple,dog]") == ["MATRIX_FRUIT=apple", "MATRIX_ANIMAL=dog", "MATRIX_COLOR=green", "MATRIX_SHAPE=circle"])
        #expect(env("t[pear,cat]") == ["MATRIX_FRUIT=pear", "MATRIX_ANIMAL=cat", "MATRIX_COLOR=pink"])
        #expect(env("t[banana,dog]") == ["MATRIX_FRUIT=banana", "MATRIX_ANIMAL=dog"])
    }

    /// GitHub runs every `include` entry of a matrix that has no keys as a job of its own; here
    /// each is a task named by its values in the order written, with them in its env.
    @Test func anIncludeOnlyMatrixMakesOneTaskPerEntry() throws {
        let (ids, workflow) = try tasks(
            """
            version: 1
            tasks:
              deploy:
                matrix:
                  include:
                    - {site: production, datacenter: site-a}
                    - {site: staging, datacenter: site-b}
                workdir: ${matrix.site}
                shell: 'true'
              after: {needs: ["deploy[staging,site-b]"], shell: 'true'}
            """)
        #expect(ids == ["deploy[production,site-a]", "deploy[staging,site-b]", "after"])
        #expect(workflow.tasks[0].env.map { "\($0.name)=\($0.value)" } == ["MATRIX_SITE=production", "MATRIX_DATACENTER=site-a"])
        #expect(workflow.tasks[1].workdir?.value == "staging")
    }

    @Test func anIncludeOnlyEntryMustNameItsTask() {
        let loaded = WorkflowLoader.decode(
            Array(
                "version: 1\ntasks:\n  t:\n    matrix: {include: [{a: x}, {b: 'no space'}]}\n    shell: 'true'\n  u:\n    matrix: {include: [{a: x}, {}]}\n    shell: 'true'\n"
                    .utf8),
            file: "flow.yaml", directory: "/work", defaultName: "w")
        #expect(
            loaded.diagnostics.map { "\($0.location.line):\($0.location.column) \($0.message.text)" } == [
                "4:36 invalid value 'no space' for matrix key 'b' of task 't': a value is part of a task id; use 1 to 64 of the characters A-Z a-z 0-9 _ . -",
                "7:13 item 2 of 'include' of the matrix of task 'u' is empty: with no matrix keys, each entry is a combination, named by its values",
            ])
    }

    /// GitHub's own example, as its docs give it: `{fruit: banana}` matches no combination and
    /// is a job of its own with no `animal`, and `{fruit: banana, animal: cat}` another (a new
    /// combination is never extended). flowrun refused both ("has no 'animal' to make one of
    /// its own"); each is now a task named by the matrix keys it gives.
    @Test func aNewCombinationFromIncludeIsNamedByTheMatrixKeysItGives() throws {
        let (ids, workflow) = try tasks(
            """
            version: 1
            tasks:
              t:
                matrix:
                  fruit: [apple, pear]
                  animal: [cat, dog]
                  include:
                    - color: green
                    - {color: pink, animal: cat}
                    - {fruit: apple, shape: circle}
                    - fruit: banana
                    - {fruit: banana, animal: cat}
                shell: 'true'
              after: {needs: ["t[banana]"], shell: 'true'}
            """)
        #expect(ids == ["t[apple,cat]", "t[apple,dog]", "t[pear,cat]", "t[pear,dog]", "t[banana]", "t[banana,cat]", "after"])
        func env(_ id: String) -> [String] {
            workflow.tasks.first { $0.id == id }!.env.map { "\($0.name)=\($0.value)" }
        }
        #expect(env("t[apple,cat]") == ["MATRIX_FRUIT=apple", "MATRIX_ANIMAL=cat", "MATRIX_COLOR=pink", "MATRIX_SHAPE=circle"])
        #expect(env("t[pear,dog]") == ["MATRIX_FRUIT=pear", "MATRIX_ANIMAL=dog", "MATRIX_COLOR=green"])
        #expect(env("t[banana]") == ["MATRIX_FRUIT=banana"])
        #expect(env("t[banana,cat]") == ["MATRIX_FRUIT=banana", "MATRIX_ANIMAL=cat"])
    }

    @Test func aPathNamingAKeyANewCombinationLacksIsAnErrorThatSaysSo() {
        let loaded = WorkflowLoader.decode(
            Array(
                "version: 1\ntasks:\n  t:\n    matrix: {os: [linux], py: ['3.12'], include: [{os: mac}, {extra: x}]}\n    workdir: ${matrix.py}\n    shell: 'true'\n"
                    .utf8),
            file: "flow.yaml", directory: "/work", defaultName: "w")
        #expect(
            loaded.diagnostics.map { "\($0.location.line):\($0.location.column) \($0.message.text)" } == [
                "5:14 '${matrix.py}' in 'workdir' of task 't[mac]': that combination, made by 'include', gives no 'py'"
            ])
    }

    @Test func needsOfAMatrixTaskWaitForEveryCombinationOrTheOneNamed() throws {
        let (_, workflow) = try tasks(
            """
            version: 1
            tasks:
              build: {matrix: {os: [linux, mac]}, shell: 'true'}
              all: {needs: build}
              one: {needs: ["build[mac]", all], shell: 'true'}
            """)
        #expect(workflow.tasks.map { $0.needs.map(\.value) } == [[], [], ["build[linux]", "build[mac]"], ["build[mac]", "all"]])
        #expect(workflow.matrixCombinations == ["build": ["build[linux]", "build[mac]"]])
    }

    @Test func matrixValuesExpandInPathsButNeverInTheScript() throws {
        let (_, workflow) = try tasks(
            """
            version: 1
            tasks:
              t:
                matrix: {os: [linux]}
                workdir: out/${matrix.os}
                outputs: ["$${matrix.os}/${matrix.os}"]
                shell: echo ${matrix.os}
            """)
        let task = try #require(workflow.tasks.first)
        #expect(task.workdir?.value == "out/linux")
        #expect(task.outputs.map(\.value) == ["$${matrix.os}/linux"])
        #expect(task.action == .shell(.script("echo ${matrix.os}")))
    }

    /// Issue 22: the limit is per task, so the error is said with the task's line, not the
    /// matrix's (it was `flow.yaml:4:13`, the matrix's `{`).
    @Test func moreThan256CombinationsAreRefusedAtTheTask() {
        let values = (0..<17).map { "v\($0)" }.joined(separator: ", ")
        let loaded = WorkflowLoader.decode(
            Array("version: 1\ntasks:\n  t:\n    matrix: {a: [\(values)], b: [\(values)]}\n    shell: 'true'\n".utf8),
            file: "flow.yaml", directory: "/work", defaultName: "w")
        #expect(
            loaded.diagnostics.map { "\($0.location): \($0.message.text)" } == [
                "flow.yaml:3:3: 'matrix' of task 't' makes 289 combinations; at most 256 (as GitHub Actions allows)"
            ])
    }

    /// `os` and `OS` are two YAML keys but one variable, MATRIX_OS: the file validated and each
    /// task saw only the later key's value. Refused at the second key, also in an `include` entry.
    @Test func matrixKeysThatDifferOnlyByCaseAreRefused() {
        let loaded = WorkflowLoader.decode(
            Array(
                """
                version: 1
                tasks:
                  t:
                    matrix: {os: [a], OS: [b]}
                    shell: 'true'
                  u:
                    matrix: {os: [a], include: [{os: a, Os: x}, {extra: y, EXTRA: z}]}
                    shell: 'true'
                """.utf8),
            file: "flow.yaml", directory: "/work", defaultName: "w")
        #expect(
            loaded.diagnostics.map { "\($0.location): \($0.message.text)" } == [
                "flow.yaml:4:23: matrix keys 'os' and 'OS' of task 't' would both be MATRIX_OS in the task's env",
                "flow.yaml:7:41: matrix keys 'os' and 'Os' of task 'u' would both be MATRIX_OS in the task's env",
                "flow.yaml:7:60: matrix keys 'extra' and 'EXTRA' of task 'u' would both be MATRIX_EXTRA in the task's env",
            ])
    }

    /// An `exclude` that drops every combination left no task at all: `needs: t` then waited for
    /// nothing and its dependent ran, and `flowrun FILE t` found no task 't'. GitHub Actions fails
    /// a job whose matrix is empty; flowrun refuses it at the matrix.
    @Test func aMatrixThatExcludesEveryCombinationIsRefused() {
        let loaded = WorkflowLoader.decode(
            Array("version: 1\ntasks:\n  t:\n    matrix: {os: [a, b], exclude: [{os: a}, {os: b}]}\n    shell: 'true'\n  u: {needs: t, shell: 'true'}\n".utf8),
            file: "flow.yaml", directory: "/work", defaultName: "w")
        #expect(
            loaded.diagnostics.map { "\($0.location): \($0.message.text)" } == [
                "flow.yaml:4:13: 'matrix' of task 't' makes no combination: 'exclude' drops every one"
            ])
    }

    /// A GitHub Actions user's list of objects (`cfg: [{os: linux}]`) is named as what it is;
    /// it was also called empty, which it is not. The same for the other lists of strings.
    @Test func aListOfMappingsIsNotCalledEmpty() {
        let yaml = """
            version: 1
            tasks:
              t: {matrix: {cfg: [{os: linux}]}, shell: 'true'}
              u: {shell: [{a: b}]}
              v: {interpreter: [{a: b}], shell: x}
              w: {combine: {inputs: [{a: b}], to: x}}

            """
        let loaded = WorkflowLoader.decode(Array(yaml.utf8), file: "flow.yaml", directory: "/work", defaultName: "w")
        #expect(
            loaded.diagnostics.map { "\($0.location): \($0.message.text)" } == [
                "flow.yaml:3:22: expected a string, number or boolean for an item of 'cfg' of 'matrix' of task 't', found a mapping",
                "flow.yaml:4:15: expected a string for an item of 'shell' of task 'u', found a mapping",
                "flow.yaml:5:21: expected a string for an item of 'interpreter' of task 'v', found a mapping",
                "flow.yaml:6:26: expected a string for an item of 'inputs' of 'combine' of task 'w', found a mapping",
            ])
    }

    /// A matrix value may be a number or a boolean (`python: [3.11, 3.12]`, `debug: [true,
    /// false]`), as in GitHub Actions: its errors say so, not "expected a string".
    @Test func matrixValueErrorsSayNumbersAndBooleansAreAccepted() {
        let yaml = """
            version: 1
            tasks:
              t: {matrix: {py: 3.12}, shell: 'true'}
              u: {matrix: {py: [3.12, {a: b}]}, shell: 'true'}
              v: {matrix: {py: [3.12], include: [{py: 3.13, debug: [true]}]}, shell: 'true'}

            """
        let loaded = WorkflowLoader.decode(Array(yaml.utf8), file: "flow.yaml", directory: "/work", defaultName: "w")
        #expect(
            loaded.diagnostics.map { "\($0.location): \($0.message.text)" } == [
                "flow.yaml:3:20: expected a list of strings, numbers or booleans for 'py' of 'matrix' of task 't', found a number",
                "flow.yaml:4:27: expected a string, number or boolean for an item of 'py' of 'matrix' of task 'u', found a mapping",
                "flow.yaml:5:56: expected a string, number or boolean for 'debug' of 'include' of 'matrix' of task 'v', found a list",
            ])
    }
}
