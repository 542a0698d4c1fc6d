import FlowState

extension RunTimeline {
    /// The timeline of a recorded run, and how many of its lines could not be read.
    package static func read(_ record: RunRecord) throws -> (timeline: RunTimeline, unreadable: Int) {
        var builder = TimelineBuilder(
            workflow: record.header.workflow, run: record.run, file: record.header.file,
            startedMilliseconds: record.header.startedMilliseconds, plan: record.plan())
        let unreadable = try record.forEachEvent { builder.add($0) }
        return (builder.timeline(), unreadable)
    }
}
