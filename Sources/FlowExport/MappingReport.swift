import FlowModel

/// How fields mapped, gathered while exporting: a line per kind of mapping.
struct MappingReport {
    private var order: [String] = []
    private var tasks: [String: [String]] = [:]
    private var edges: [String: Int] = [:]
    var notCarried: [String] = []

    mutating func add(_ mapping: String, _ task: String) {
        if tasks[mapping] == nil, edges[mapping] == nil { order.append(mapping) }
        tasks[mapping, default: []].append(task)
    }

    mutating func count(_ mapping: String, edges number: Int) {
        if tasks[mapping] == nil, edges[mapping] == nil { order.append(mapping) }
        edges[mapping, default: 0] += number
    }

    var mapped: [String] {
        order.map { mapping in
            if let number = edges[mapping] { return "\(mapping): \(number.counted("edge"))" }
            return "\(mapping): \(Self.list(tasks[mapping] ?? []))"
        }
    }

    /// At most five ids, then how many more.
    static func list(_ ids: [String]) -> String {
        ids.count <= 5 ? ids.joined(separator: ", ") : ids.prefix(5).joined(separator: ", ") + " and \(ids.count - 5) more"
    }
}
