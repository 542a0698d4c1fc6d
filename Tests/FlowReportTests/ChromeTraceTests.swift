import Foundation
import Testing

@testable import FlowReport

/// The trace as Perfetto reads it: the Chrome trace event format's JSON object form.
@Suite struct ChromeTraceTests {
    func slices(_ trace: String) throws -> [[String: Any]] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(trace.utf8)) as? [String: Any])
        let events = try #require(object["traceEvents"] as? [[String: Any]])
        return events.filter { $0["ph"] as? String == "X" }
    }

    @Test func oneSlicePerAttemptOnItsSlotWithTheTasksArgs() throws {
        let slices = try slices(ChromeTrace.render(RunScript.failedRun().timeline()))
        // build, test twice, lint; the skipped and up-to-date tasks took no slot.
        #expect(slices.map { $0["name"] as? String } == ["build", "test", "test", "lint"])
        #expect(slices.map { $0["ts"] as? Int } == [1000, 1_000_000, 2_500_000, 1_000_000])
        #expect(slices.map { $0["dur"] as? Int } == [999_000, 1_000_000, 1_500_000, 500_000])
        #expect(slices.map { $0["tid"] as? Int } == [1, 2, 2, 1])
        let args = try #require(slices[2]["args"] as? [String: Any])
        #expect(args["task"] as? String == "test" && args["attempt"] as? Int == 2)
        #expect(args["queue"] as? String == "tests" && args["priority"] as? String == "high")
        #expect(args["result"] as? String == "failed" && args["exit_status"] as? Int == 2)
        let first = try #require(slices[1]["args"] as? [String: Any])
        #expect(first["result"] as? String == "retried" && first["exit_status"] as? Int == 1)
    }

    /// A shell task succeeds only when its command exits 0: its slice says so, as a failed
    /// one's says its status, instead of null.
    @Test func aSucceededShellTasksSliceHasExitStatusZero() throws {
        let slices = try slices(ChromeTrace.render(RunScript.failedRun().timeline()))
        let build = try #require(slices.first { $0["name"] as? String == "build" }?["args"] as? [String: Any])
        #expect(build["result"] as? String == "succeeded" && build["exit_status"] as? Int == 0)
    }

    @Test func eachSlotIsANamedTrackAndSlicesOnATrackNeverOverlap() throws {
        let trace = ChromeTrace.render(RunScript.failedRun().timeline())
        let object = try #require(try JSONSerialization.jsonObject(with: Data(trace.utf8)) as? [String: Any])
        let events = try #require(object["traceEvents"] as? [[String: Any]])
        let names = events.filter { $0["name"] as? String == "thread_name" }.map { ($0["args"] as? [String: Any])?["name"] as? String }
        #expect(names == ["slot 1", "slot 2"])
        var byTrack: [Int: [(Int, Int)]] = [:]
        for slice in try slices(trace) {
            byTrack[slice["tid"] as! Int, default: []].append((slice["ts"] as! Int, slice["dur"] as! Int))
        }
        for (_, list) in byTrack {
            let sorted = list.sorted { $0.0 < $1.0 }
            for (left, right) in zip(sorted, sorted.dropFirst()) { #expect(left.0 + left.1 <= right.0) }
        }
    }

    @Test func taskIdsThatNeedEscapingStayValidJSON() throws {
        var script = RunScript([.init(task: "say \"hi\"\\ </script>\u{1}", needs: [], kind: "shell")])
        script.at(0, .taskStarted(task: "say \"hi\"\\ </script>\u{1}", attempt: 1, kind: "shell"))
        script.at(5, .taskSucceeded(task: "say \"hi\"\\ </script>\u{1}", attempts: 1, durationMilliseconds: 5))
        let slices = try slices(ChromeTrace.render(script.timeline()))
        #expect(slices.first?["name"] as? String == "say \"hi\"\\ </script>\u{1}")
    }

    /// The format's definition, checked by a separate reader (validate_trace.py), and the slices
    /// against the events of the run: one per attempt, at its times.
    @Test func theTraceMeetsTheFormatsDefinition() async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let path = folder.path + "/trace.json"
        try ReportFile.write(ChromeTrace.render(RunScript.failedRun().timeline()), to: path)
        let expected = folder.path + "/expected.json"
        // name, ts, dur of each attempt, in microseconds from the run's start, from the events.
        try ReportFile.write(
            #"[["build",1000,999000],["test",1000000,1000000],["test",2500000,1500000],["lint",1000000,500000]]"#, to: expected)
        let check = try await Python.run(["validate_trace.py", path, expected])
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output == "ok: 4 slices on 2 tracks\n")
    }
}
