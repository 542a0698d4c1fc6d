import ArgumentParser

/// `--events human|plain|jsonl`: how the run is shown on stdout.
enum EventsMode: String, ExpressibleByArgument, CaseIterable {
    /// A live view, redrawn in place: the default on a terminal.
    case human
    /// One line per event, task-prefixed, no ANSI codes: the default in pipes and CI.
    case plain
    /// One JSON object per line, as `schemas/events.schema.json` describes; nothing else.
    case jsonl
}
