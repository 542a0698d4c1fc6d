/// The one did-you-mean helper, for keys, task ids and queue names.
package enum Spelling {
    /// The closest candidate within a small edit distance (at most 3, less for short words), if any.
    ///
    /// Cheap per candidate (no allocation for an ASCII one), since a task id is looked for among
    /// every id of the file, 100,000 of them in a large one.
    package static func suggestion(for word: String, among candidates: some Sequence<String>) -> String? {
        let length = word.count
        let limit = min(3, max(1, length / 3))
        let lowered = Array(word.lowercased().utf8)
        var rows = Rows()
        var candidateBytes: [UInt8] = []
        var best: (candidate: String, distance: Int)?
        for candidate in candidates where abs(candidate.count - length) <= limit {
            candidateBytes.removeAll(keepingCapacity: true)
            if candidate.utf8.allSatisfy({ $0 < 0x80 }) {
                for byte in candidate.utf8 { candidateBytes.append(byte | (byte >= 0x41 && byte <= 0x5A ? 0x20 : 0)) }
            } else {
                candidateBytes.append(contentsOf: candidate.lowercased().utf8)
            }
            let distance = editDistance(lowered, candidateBytes, limit: limit, rows: &rows)
            if distance <= limit, distance < (best?.distance ?? .max) {
                best = (candidate, distance)
            }
        }
        return best?.candidate
    }

    /// The three rows of the distance table, kept from one candidate to the next.
    struct Rows {
        var previous2: [Int] = []
        var previous: [Int] = []
        var current: [Int] = []
    }

    /// Levenshtein distance with transpositions counted as one edit; stops early past `limit`.
    static func editDistance(_ a: [UInt8], _ b: [UInt8], limit: Int, rows: inout Rows) -> Int {
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        // Only the first row needs its values; the other two are written before they are read.
        if rows.previous2.count != b.count + 1 || rows.current.count != b.count + 1 {
            rows.previous2 = [Int](repeating: 0, count: b.count + 1)
            rows.current = [Int](repeating: 0, count: b.count + 1)
        }
        rows.previous.removeAll(keepingCapacity: true)
        rows.previous.append(contentsOf: 0...b.count)
        for i in 1...a.count {
            rows.current[0] = i
            var rowMinimum = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(rows.previous[j] + 1, rows.current[j - 1] + 1, rows.previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, rows.previous2[j - 2] + 1)
                }
                rows.current[j] = value
                rowMinimum = min(rowMinimum, value)
            }
            if rowMinimum > limit { return rowMinimum }
            (rows.previous2, rows.previous, rows.current) = (rows.previous, rows.current, rows.previous2)
        }
        return rows.previous[b.count]
    }
}
