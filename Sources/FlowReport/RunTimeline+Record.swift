import FlowState

extension RunTimeline {
    /// The timeline of a recorded run, and how many of its lines could not be read; `runningAt`
    /// (now) when a flowrun is still writing the record (see `TimelineBuilder.timeline`).
    package static func read(_ record: RunRecord, runningAt now: Int64? = nil) throws -> (timeline: RunTimeline, unreadable: Int) {
        var builder = TimelineBuilder(
            workflow: record.header.workflow, run: record.run, file: record.header.file,
            startedMilliseconds: record.header.startedMilliseconds, plan: record.plan())
        let unreadable = try record.forEachEvent { builder.add($0) }
        return (builder.timeline(runningAt: now), unreadable)
    }
}
