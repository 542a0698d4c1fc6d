import FlowModel

/// Expands a task's `matrix:` into its combinations, as GitHub Actions does: every combination
/// of the keys' values in key order (the last key varying fastest), less those an `exclude`
/// entry matches, then each `include` entry added to every combination whose values it
/// agrees with, or, agreeing with none, added as a combination of its own.
///
/// A pure decision over values: the decoder reports its problems at the task's `matrix` key.
struct MatrixExpansion {
    /// One combination: the matrix keys' values in key order (a combination `include` made
    /// has those its entry gives), then keys an `include` added.
    struct Combination: Equatable {
        var pairs: [(key: String, value: String)]
        /// How many of `pairs` are the matrix's own keys: those name the task (`ID[V1,V2]`).
        var named: Int

        static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.named == rhs.named && lhs.pairs.elementsEqual(rhs.pairs) { $0 == $1 }
        }

        func value(of key: String) -> String? { pairs.first { $0.key == key }?.value }

        /// `linux,3.11`: what goes between the brackets of the task's id.
        var suffix: String { pairs.prefix(named).map(\.value).joined(separator: ",") }
    }

    enum Problem: Error, Equatable {
        case tooMany(Int)
        case includeMissesKey(entry: Int, key: String)
        /// `exclude` dropped every combination and `include` added none back.
        case noCombination
        /// An `include` entry with no pairs in a matrix of `include` only: it would name nothing.
        case emptyInclude(entry: Int)
    }

    static let maxCombinations = 256

    var keys: [String]
    var values: [[String]]
    var exclude: [[(key: String, value: String)]] = []
    var include: [[(key: String, value: String)]] = []

    func combinations() -> Result<[Combination], Problem> {
        // No keys (GitHub's include-only matrix): each entry is a combination, named by all its values.
        if keys.isEmpty {
            if let empty = include.firstIndex(where: \.isEmpty) { return .failure(.emptyInclude(entry: empty)) }
            guard !include.isEmpty else { return .failure(.noCombination) }
            guard include.count <= Self.maxCombinations else { return .failure(.tooMany(include.count)) }
            return .success(include.map { Combination(pairs: $0, named: $0.count) })
        }
        // Counted before building: 20 keys of 10 values would not fit in memory. Excludes may
        // bring a larger product down to the limit, but not one 64 times as large.
        var product = 1
        for list in values {
            let (next, overflow) = product.multipliedReportingOverflow(by: list.count)
            product = overflow ? .max : next
        }
        guard product <= Self.maxCombinations * 64 else { return .failure(.tooMany(product)) }
        var combinations: [Combination] = [Combination(pairs: [], named: keys.count)]
        for (key, list) in zip(keys, values) {
            combinations = combinations.flatMap { combination in
                list.map { value in Combination(pairs: combination.pairs + [(key, value)], named: keys.count) }
            }
        }
        combinations.removeAll { combination in
            exclude.contains { entry in entry.allSatisfy { combination.value(of: $0.key) == $0.value } }
        }
        let original = Set(keys)
        var added: [Combination] = []
        for (number, entry) in include.enumerated() {
            let own = entry.filter { original.contains($0.key) }
            let extra = entry.filter { !original.contains($0.key) }
            var matched = false
            for index in combinations.indices
            where own.allSatisfy({ combinations[index].value(of: $0.key) == $0.value }) {
                // Only keys an include added may be overwritten by a later one; the matrix's own stay.
                for pair in extra {
                    if let at = combinations[index].pairs.firstIndex(where: { $0.key == pair.key }) {
                        combinations[index].pairs[at].value = pair.value
                    } else {
                        combinations[index].pairs.append(pair)
                    }
                }
                matched = true
            }
            guard !matched else { continue }
            // Named by the matrix keys it gives, in key order, as GitHub's `{fruit: banana}` is a
            // job of its own with no `animal`: `ID[banana]`. One that gives none has no name.
            let named = keys.compactMap { key in own.first { $0.key == key } }
            guard !named.isEmpty else { return .failure(.includeMissesKey(entry: number, key: keys[0])) }
            added.append(Combination(pairs: named + extra, named: named.count))
        }
        combinations += added
        guard !combinations.isEmpty else { return .failure(.noCombination) }
        guard combinations.count <= Self.maxCombinations else { return .failure(.tooMany(combinations.count)) }
        return .success(combinations)
    }
}
