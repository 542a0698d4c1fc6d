import FlowPlanning

extension RecordHeader.PlanEntry {
    /// Each task of `plan`, in plan order, as a record's plan line keeps it (no fingerprint yet).
    package static func entries(of plan: Plan) -> [Self] {
        plan.tasks.map { task in
            Self(
                task: task.id, needs: task.needs.map { plan.tasks[$0].id }, kind: task.spec.action.kind, queue: task.spec.queue,
                priority: task.spec.priority.rawValue)
        }
    }
}

extension RecordHeader {
    /// The plan line of `plan`, newline included: the bytes of `encodedPlan(PlanEntry.entries(of:))`,
    /// written from the plan in place. The record writes it on the run's loop when the first task
    /// runs; made through the entries, it copied each task and each need's task (a tenth of the
    /// loop's instructions a task on a graph of `true` tasks).
    package static func encodedPlan(of plan: Plan) -> [UInt8] {
        plan.tasks.withUnsafeBufferPointer { tasks in
            var bytes = Array("{\"plan\":[".utf8)
            bytes.reserveCapacity(tasks.count * 96)
            for index in tasks.indices {
                append(index == 0 ? "{\"task\":" : ",{\"task\":", to: &bytes)
                appendString(tasks[index].spec.id, to: &bytes)
                append(",\"needs\":[", to: &bytes)
                for (position, need) in tasks[index].needs.enumerated() {
                    if position > 0 { bytes.append(UInt8(ascii: ",")) }
                    appendString(tasks[need].spec.id, to: &bytes)
                }
                append("],\"kind\":", to: &bytes)
                appendString(tasks[index].spec.action.kind, to: &bytes)
                // No fingerprint yet (`PlanEntry.entries` leaves it nil).
                append(",\"fingerprint\":null", to: &bytes)
                if let queue = tasks[index].spec.queue {
                    append(",\"queue\":", to: &bytes)
                    appendString(queue, to: &bytes)
                }
                append(",\"priority\":", to: &bytes)
                appendString(tasks[index].spec.priority.rawValue, to: &bytes)
                bytes.append(UInt8(ascii: "}"))
            }
            bytes += "]}\n".utf8
            return bytes
        }
    }

    /// A literal's bytes in one copy: `+= "...".utf8` goes through the string's view, and a
    /// plan line has six pieces a task.
    private static func append(_ literal: StaticString, to bytes: inout [UInt8]) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }
}
