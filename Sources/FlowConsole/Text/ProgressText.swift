import FlowModel

/// Formats `task.progress` for people: `12.3 MB of 45.6 MB (27%)`, `120 of 300 entries (40%)`.
enum ProgressText {
    /// The amount done, out of the total when it is known, with the percentage.
    static func string(done: Int64, total: Int64?, unit: ProgressUnit) -> String {
        guard let total, total > 0 else { return amount(done, unit: unit) }
        return "\(amountWithoutUnit(done, unit: unit)) of \(amount(total, unit: unit)) (\(percent(done: done, total: total))%)"
    }

    /// `done` as a whole percentage of `total`, 0 to 100; 100 only when done.
    static func percent(done: Int64, total: Int64) -> Int64 {
        guard total > 0 else { return 0 }
        let clamped = min(max(done, 0), total)
        // Through Double, so that totals near Int64.max cannot overflow `clamped * 100`.
        return clamped == total ? 100 : min(Int64(Double(clamped) / Double(total) * 100), 99)
    }

    /// `1.5 MB`, `512 B`, `300 entries`.
    static func amount(_ value: Int64, unit: ProgressUnit) -> String {
        switch unit {
        case .bytes: bytes(value)
        case .entries: value == 1 ? "1 entry" : "\(value) entries"
        }
    }

    /// Bytes carry their unit on both sides (`1.2 MB of 4.5 GB`); entries only at the end.
    private static func amountWithoutUnit(_ value: Int64, unit: ProgressUnit) -> String {
        switch unit {
        case .bytes: bytes(value)
        case .entries: "\(value)"
        }
    }

    /// Decimal (SI) units, as download tools and file browsers show sizes: `999 B`, `1.0 kB`, `12.3 MB`.
    static func bytes(_ value: Int64) -> String {
        guard value >= 1000 else { return "\(max(value, 0)) B" }
        let units = ["kB", "MB", "GB", "TB", "PB", "EB"]
        var scaled = Double(value) / 1000
        var index = 0
        while scaled >= 999.95 && index < units.count - 1 {
            scaled /= 1000
            index += 1
        }
        let tenths = Int64((scaled * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[index])"
    }
}
