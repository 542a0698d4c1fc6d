import Foundation
import Testing

/// A JSON Lines event stream as a run printed it, with the questions tests ask of it.
struct EventStream {
    struct Event {
        var fields: [String: Any]
        var name: String { fields["event"] as? String ?? "" }
        var task: String? { fields["task"] as? String }
        subscript(_ key: String) -> Any? { fields[key] }
    }

    static let finalNames: Set<String> = ["task.succeeded", "task.failed", "task.cancelled", "task.skipped"]

    var events: [Event]

    init(_ text: String) throws {
        events = try text.split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            return Event(fields: try #require(object as? [String: Any], "not an object: \(line)"))
        }
    }

    func named(_ name: String) -> [Event] { events.filter { $0.name == name } }

    /// Task ids in the order their first attempt started.
    var startOrder: [String] { named("task.started").filter { $0["attempt"] as? Int == 1 }.compactMap(\.task) }

    /// The final event of each task.
    var finals: [String: String] {
        var finals: [String: String] = [:]
        for event in events where Self.finalNames.contains(event.name) { finals[event.task!] = event.name }
        return finals
    }

    func lines(of task: String, _ stream: String = "stdout") -> [String] {
        named("task.output").filter { $0.task == task && $0["stream"] as? String == stream }.compactMap { $0["line"] as? String }
    }

    /// The most tasks executing at once (from task.started of a first attempt to the task's final event),
    /// counted over `tasks` (every task when nil).
    func peakExecuting(among tasks: Set<String>? = nil) -> Int {
        var running: Set<String> = []
        var peak = 0
        for event in events {
            guard let task = event.task, tasks?.contains(task) ?? true else { continue }
            if event.name == "task.started" { running.insert(task) }
            if Self.finalNames.contains(event.name) { running.remove(task) }
            peak = max(peak, running.count)
        }
        return peak
    }

    /// Position of an event in the stream.
    func index(of name: String, task: String) -> Int? {
        events.firstIndex { $0.name == name && $0.task == task }
    }
}
