/// The one did-you-mean helper, for keys, task ids and queue names.
public enum Spelling {
    /// The closest candidate within a small edit distance (at most 3, less for short words), if any.
    public static func suggestion(for word: String, among candidates: some Sequence<String>) -> String? {
        let length = word.count
        let limit = min(3, max(1, length / 3))
        let lowered = Array(word.lowercased().utf8)
        var best: (candidate: String, distance: Int)?
        for candidate in candidates where abs(candidate.count - length) <= limit {
            let distance = editDistance(lowered, Array(candidate.lowercased().utf8), limit: limit)
            if distance <= limit, distance < (best?.distance ?? .max) {
                best = (candidate, distance)
            }
        }
        return best?.candidate
    }

    /// Levenshtein distance with transpositions counted as one edit; stops early past `limit`.
    static func editDistance(_ a: [UInt8], _ b: [UInt8], limit: Int) -> Int {
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, previous2[j - 2] + 1)
                }
                current[j] = value
                rowMinimum = min(rowMinimum, value)
            }
            if rowMinimum > limit { return rowMinimum }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
