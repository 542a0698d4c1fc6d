/// A run as a Chrome trace event file (JSON), which Perfetto and chrome://tracing open.
///
/// One process (the run), one thread per concurrency slot (`slot 1`, `slot 2`, ...), and one
/// complete slice (`"ph":"X"`) per attempt on its task's slot, so that slices on one track never
/// overlap; a retried task has a slice per attempt. Times are microseconds from the run's start
/// (the start itself, in milliseconds since 1970, is in `otherData`). Each slice's args carry the
/// task id, attempt, queue, priority, result and exit status. Tasks that never ran (skipped, up
/// to date, done before) have no slice: they took no time on any slot.
package enum ChromeTrace {
    package static func render(_ timeline: RunTimeline) -> String {
        var events: [String] = []
        events.reserveCapacity(timeline.tasks.count + timeline.slotCount + 2)
        let title = "flowrun \(timeline.workflow)" + (timeline.run.map { " run \($0)" } ?? "")
        events.append("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\(JSONText.quoted(title))}}")
        for slot in 0..<timeline.slotCount {
            events.append("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":\(slot + 1),\"args\":{\"name\":\"slot \(slot + 1)\"}}")
            events.append("{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":\(slot + 1),\"args\":{\"sort_index\":\(slot + 1)}}")
        }
        let start = timeline.startedMilliseconds
        for task in timeline.tasks {
            guard let slot = task.slot else { continue }
            for attempt in task.attempts {
                var args = "\"task\":\(JSONText.quoted(task.id)),\"attempt\":\(attempt.number),\"kind\":\(JSONText.quoted(task.kind))"
                args += ",\"queue\":\(JSONText.quoted(task.queue ?? "default")),\"priority\":\(JSONText.quoted(task.priority))"
                args += ",\"result\":\(JSONText.quoted(attempt.result.rawValue))"
                args += ",\"exit_status\":" + (attempt.exitCode.map(String.init) ?? "null")
                if let reason = attempt.reason { args += ",\"reason\":\(JSONText.quoted(reason))" }
                if task.critical { args += ",\"critical_path\":true" }
                let ts = (attempt.startMilliseconds - start) * 1000
                let duration = max(attempt.endMilliseconds - attempt.startMilliseconds, 0) * 1000
                events.append(
                    "{\"name\":\(JSONText.quoted(task.id)),\"cat\":\(JSONText.quoted(task.kind)),\"ph\":\"X\",\"ts\":\(ts),\"dur\":\(duration),"
                        + "\"pid\":1,\"tid\":\(slot + 1),\"args\":{\(args)}}")
            }
        }
        let other =
            "\"workflow\":\(JSONText.quoted(timeline.workflow)),\"run\":\(JSONText.quoted(timeline.run)),"
            + "\"result\":\(JSONText.quoted(timeline.result.rawValue)),\"started_ms\":\(start),\"duration_ms\":\(timeline.durationMilliseconds)"
        return "{\"displayTimeUnit\":\"ms\",\"otherData\":{\(other)},\"traceEvents\":[\n" + events.joined(separator: ",\n") + "\n]}\n"
    }
}
