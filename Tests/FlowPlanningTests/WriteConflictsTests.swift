import FlowModel
import FlowPlanning
import Testing

/// Two tasks writing one file with nothing ordering them: the result would depend on timing.
@Suite struct WriteConflictsTests {
    let planner = PlannerTests()

    @Test func twoDownloadsToOneFileWithoutNeedsAreRefusedAtTheSecond() throws {
        let result = try planner.plan(
            """
            version: 1
            tasks:
              a: {download: {url: "http://127.0.0.1/a", to: out/x.bin}}
              b: {download: {url: "http://127.0.0.1/b", to: ./out/x.bin}}
            """)
        #expect(result.plan == nil)
        #expect(
            planner.messages(result) == [
                "4:49: task 'b' writes 'out/x.bin', as task 'a' does, and neither needs the other: the file would hold whichever finished last"
            ])
        #expect(result.diagnostics.first?.message.hint?.contains("needs: [a]") == true)
    }

    /// The file is named relative to the workflow's folder by bytes: a name that starts with a
    /// combining mark (one Character with the `/` before it) lost its mark ('x.bin').
    @Test func aFileWhoseNameStartsWithACombiningMarkIsNamedWhole() throws {
        let result = try planner.plan(
            """
            version: 1
            tasks:
              a: {download: {url: "http://127.0.0.1/a", to: "\u{301}x.bin"}}
              b: {download: {url: "http://127.0.0.1/b", to: "\u{301}x.bin"}}
            """)
        #expect(planner.messages(result).first?.contains("task 'b' writes '\u{301}x.bin', as task 'a' does") == true, "\(planner.messages(result))")
    }

    @Test func aMatrixWhoseToNamesNoMatrixValueIsRefused() throws {
        let result = try planner.plan(
            """
            version: 1
            tasks:
              get:
                matrix: {os: [linux, mac]}
                download: {url: "http://127.0.0.1/${matrix.os}", to: out/tool}
            """)
        #expect(result.plan == nil)
        #expect(planner.messages(result).count == 1)
        #expect(planner.messages(result).first?.contains("writes 'out/tool', as task 'get[linux]' does") == true)
    }

    @Test func aShellOutputAndACombineToTheSameFileAreRefused() throws {
        let result = try planner.plan(
            """
            version: 1
            tasks:
              make: {shell: "echo > out/all.txt", outputs: [out/all.txt]}
              join: {combine: {inputs: [a.txt], to: out/all.txt}}
            """)
        #expect(planner.messages(result).first?.hasPrefix("4:41: task 'join' writes") == true, "\(planner.messages(result))")
    }

    /// Every combination's error is at the one `outputs` line: they came in the order of a
    /// hash table, another on every run of `flowrun validate`. Now in the order the tasks run.
    @Test func conflictsAtOneLineComeInRunOrderEveryTime() throws {
        let values = ["a", "b", "c", "d", "e", "f", "g", "h"]
        let result = try planner.plan(
            """
            version: 1
            tasks:
              one: {matrix: {k: [\(values.joined(separator: ", "))]}, shell: "true", outputs: ["o/${matrix.k}"]}
              two: {matrix: {k: [\(values.joined(separator: ", "))]}, shell: "true", outputs: ["o/${matrix.k}"]}
            """)
        #expect(
            planner.messages(result).map { String($0.prefix(while: { $0 != "," })) }
                == values.map { "4:73: task 'two[\($0)]' writes 'o/\($0)'" })
    }

    @Test func writersOrderedByNeedsAreAllowed() throws {
        let result = try planner.plan(
            """
            version: 1
            tasks:
              primary: {download: {url: "http://127.0.0.1/a", to: out/x.bin}}
              mirror: {needs: [primary], when: failure, download: {url: "http://127.0.0.1/b", to: out/x.bin}}
              rewrite: {needs: [mirror], when: always, shell: "true", outputs: [out/x.bin]}
            """)
        #expect(result.diagnostics.isEmpty)
        #expect(result.plan?.tasks.map(\.id) == ["primary", "mirror", "rewrite"])
    }

    @Test func foldersAndGlobsAreNotFiles() throws {
        // Two archives unpacked into one folder, and two tasks whose globs overlap, are fine.
        let result = try planner.plan(
            """
            version: 1
            tasks:
              one: {decompress: {from: a.tar, to: vendor}}
              two: {decompress: {from: b.tar, to: vendor}}
              c: {shell: "true", outputs: ["out/*.o"]}
              d: {shell: "true", outputs: ["out/*.o"]}
            """)
        #expect(result.diagnostics.isEmpty)
    }

    @Test func namesThatDifferOnlyInUnicodeNormalizationAreTwoFiles() throws {
        // Linux compares names by bytes: e-acute composed and decomposed are two files.
        let result = try planner.plan(
            """
            version: 1
            tasks:
              one: {download: {url: "http://127.0.0.1/1", to: "caf\u{E9}.bin"}}
              two: {download: {url: "http://127.0.0.1/2", to: "cafe\u{301}.bin"}}
            """)
        #expect(result.diagnostics.isEmpty, "\(planner.messages(result))")
    }
}
