import FlowModel
import Foundation

extension WorkflowDecoder {
    /// What a matrix value may be, as its errors say: a scalar, used as its text (`3.12`, `true`).
    static let matrixValues = (one: "a string, number or boolean", many: "strings, numbers or booleans")

    /// A task's `matrix:`, checked: keys that name variables, non-empty lists of values that can
    /// be part of a task id, and `exclude`/`include` lists of mappings. nil (reported) if broken.
    mutating func matrix(_ node: Node, task: TaskID) -> MatrixExpansion? {
        func field() -> String { "'matrix' of task '\(task)'" }
        guard let entries = entries(node, field()) else { return nil }
        var expansion = MatrixExpansion(keys: [], values: [])
        var broken = false
        var lists: [(key: String, node: Node)] = []
        for entry in entries {
            if entry.key == "exclude" || entry.key == "include" {
                lists.append((entry.key, entry.value))
                continue
            }
            guard EnvironmentEntry.isValidName(entry.key) else {
                report(.invalidMatrixKey(entry.key, task: task), at: entry.keyMark)
                broken = true
                continue
            }
            // `os` and `OS` would both be MATRIX_OS, the later value hiding the other.
            if let other = expansion.keys.first(where: { $0.uppercased() == entry.key.uppercased() }) {
                report(.matrixKeysShareVariable(other, entry.key, task: task), at: entry.keyMark)
                broken = true
                continue
            }
            guard let values = strings(entry.value, "'\(entry.key)' of \(field())", allowSingle: false, items: Self.matrixValues) else {
                broken = true
                continue
            }
            if Self.isEmptyList(entry.value) {
                report(.empty("'\(entry.key)' of \(field())"), at: entry.value)
                broken = true
            } else if values.isEmpty {
                broken = true
            }
            var seen: Set<String> = []
            for value in values {
                if !value.value.isValidTaskID {
                    report(Diagnostic(.invalidMatrixValue(value.value, key: entry.key, task: task), at: value.location))
                    broken = true
                } else if !seen.insert(value.value).inserted {
                    report(Diagnostic(.repeatedMatrixValue(value.value, key: entry.key, task: task), at: value.location))
                    broken = true
                }
            }
            expansion.keys.append(entry.key)
            expansion.values.append(values.map(\.value))
        }
        // With no keys, `include` alone makes the combinations, as GitHub's include-only matrix.
        let includeOnly = expansion.keys.isEmpty && lists.contains { $0.key == "include" && !Self.isEmptyList($0.node) }
        if expansion.keys.isEmpty, !broken, !includeOnly {
            report(.emptyMatrix(task: task), at: node)
            return nil
        }
        for (key, list) in lists {
            guard
                let pairs = matrixEntries(
                    list, "'\(key)' of \(field())", keys: expansion.keys, task: task, isExclude: key == "exclude", namesTask: includeOnly)
            else {
                broken = true
                continue
            }
            if key == "exclude" { expansion.exclude = pairs } else { expansion.include = pairs }
        }
        return broken ? nil : expansion
    }

    /// The mappings of `exclude` or `include`, each as its pairs in the order written.
    private mutating func matrixEntries(
        _ node: Node, _ field: @autoclosure () -> String, keys: [String], task: TaskID, isExclude: Bool, namesTask: Bool
    ) -> [[(key: String, value: String)]]? {
        guard case .sequence(let items) = node.content else {
            report(.wrongType(field(), expected: "a list of mappings", found: node.kindDescription), at: node)
            return nil
        }
        var result: [[(key: String, value: String)]] = []
        var broken = false
        for item in items {
            guard let entries = entries(item, "an item of \(field())") else {
                broken = true
                continue
            }
            var pairs: [(key: String, value: String)] = []
            for entry in entries {
                let isKey = keys.contains(entry.key)
                if isExclude, !isKey {
                    report(.unknownKey(entry.key, in: field(), suggestion: Spelling.suggestion(for: entry.key, among: keys)), at: entry.keyMark)
                    broken = true
                    continue
                }
                if !isKey, !EnvironmentEntry.isValidName(entry.key) {
                    report(.invalidMatrixKey(entry.key, task: task), at: entry.keyMark)
                    broken = true
                    continue
                }
                let others = keys + pairs.map(\.key)
                if let other = others.first(where: { $0 != entry.key && $0.uppercased() == entry.key.uppercased() }) {
                    report(.matrixKeysShareVariable(other, entry.key, task: task), at: entry.keyMark)
                    broken = true
                    continue
                }
                guard let value = locatedString(entry.value, "'\(entry.key)' of \(field())", expected: Self.matrixValues.one) else {
                    broken = true
                    continue
                }
                if isKey || namesTask, !value.value.isValidTaskID {
                    report(Diagnostic(.invalidMatrixValue(value.value, key: entry.key, task: task), at: value.location))
                    broken = true
                }
                pairs.append((entry.key, value.value))
            }
            result.append(pairs)
        }
        return broken ? nil : result
    }

    /// One task per combination of `matrix`: `ID[V1,V2]`, each with `MATRIX_KEY` in its env and
    /// `${matrix.KEY}` replaced in the fields where `${NAME}` expands. nil (reported) if broken.
    /// Too many combinations is said at the task (`taskMark`), the limit being per task.
    mutating func expand(_ spec: TaskSpec, _ matrix: MatrixExpansion, at mark: Mark, task taskMark: Mark) -> [TaskSpec]? {
        let combinations: [MatrixExpansion.Combination]
        switch matrix.combinations() {
        case .success(let found): combinations = found
        case .failure(.tooMany(let count)):
            report(.tooManyCombinations(count, task: spec.id), at: taskMark)
            return nil
        case .failure(.includeMissesKey(let entry, let key)):
            report(.includeMissesKey(entry: entry + 1, key: key, task: spec.id), at: mark)
            return nil
        case .failure(.noCombination):
            report(.noCombination(task: spec.id), at: mark)
            return nil
        case .failure(.emptyInclude(let entry)):
            report(.emptyInclude(entry: entry + 1, task: spec.id), at: mark)
            return nil
        }
        var tasks: [TaskSpec] = []
        tasks.reserveCapacity(combinations.count)
        var ids: Set<TaskID> = []
        for combination in combinations {
            var task = spec
            task.id = "\(spec.id)[\(combination.suffix)]"
            guard ids.insert(task.id).inserted else {
                report(.repeatedCombination(task.id), at: mark)
                return nil
            }
            let names = Set(combination.pairs.map { "MATRIX_" + $0.key.uppercased() })
            task.env =
                task.env.filter { !names.contains($0.name) }
                + combination.pairs.map { EnvironmentEntry(name: "MATRIX_" + $0.key.uppercased(), value: $0.value) }
            guard substituteMatrix(in: &task, combination, keys: matrix.keys) else { return nil }
            tasks.append(task)
        }
        return tasks
    }

    /// Replaces `${matrix.KEY}` where `${NAME}` expands (and in the description); reports a
    /// key the combination has not. With no combination (a task without `matrix`), any such
    /// reference is reported.
    mutating func substituteMatrix(in task: inout TaskSpec, _ combination: MatrixExpansion.Combination?, keys: [String] = []) -> Bool {
        var fine = true
        let id = task.id
        func apply(_ value: inout Located<String>, _ field: String) {
            guard MatrixReference.appears(in: value.value) else { return }
            switch MatrixReference.substitute(value.value, combination: combination) {
            case .success(let text): value.value = text
            case .failure(let unknown):
                let key = unknown.key
                fine = false
                // A matrix key that a combination made by `include` does not give.
                if keys.contains(key) {
                    report(Diagnostic(.keyMissingInCombination(key, field: "'\(field)' of task '\(id)'"), at: value.location))
                    return
                }
                let suggestion = combination.flatMap { Spelling.suggestion(for: key, among: $0.pairs.map(\.key)) }
                report(
                    Diagnostic(
                        .unknownMatrixKey(key, field: "'\(field)' of task '\(id)'", hasMatrix: combination != nil, suggestion: suggestion), at: value.location))
            }
        }
        if var workdir = task.workdir { apply(&workdir, "workdir"); task.workdir = workdir }
        for index in task.inputs.indices { apply(&task.inputs[index], "inputs") }
        for index in task.outputs.indices { apply(&task.outputs[index], "outputs") }
        if let combination, let description = task.description, MatrixReference.appears(in: description),
            case .success(let text) = MatrixReference.substitute(description, combination: combination)
        {
            task.description = text
        }
        switch task.action {
        case .download(var download):
            apply(&download.url, "url")
            apply(&download.to, "to")
            for index in download.headers.indices { apply(&download.headers[index].value, "header '\(download.headers[index].name)'") }
            task.action = .download(download)
        case .decompress(var decompress):
            apply(&decompress.from, "from")
            apply(&decompress.to, "to")
            task.action = .decompress(decompress)
        case .combine(var combine):
            for index in combine.inputs.indices { apply(&combine.inputs[index], "inputs") }
            apply(&combine.to, "to")
            if var base = combine.base { apply(&base, "base"); combine.base = base }
            if var prefix = combine.prefix { apply(&prefix, "prefix"); combine.prefix = prefix }
            task.action = .combine(combine)
        case .shell, .group:
            break
        }
        return fine
    }
}

/// `${matrix.KEY}` in a text; `$${matrix.KEY}` is left for `Interpolation`, which makes it literal.
enum MatrixReference {
    static let prefix = "${matrix."

    /// Whether `text` holds a reference: a `$` is looked for first, which most texts have not.
    static func appears(in text: String) -> Bool {
        text.utf8.contains(UInt8(ascii: "$")) && text.range(of: prefix) != nil
    }

    /// The text with each reference replaced; the first key the combination has not, if any.
    static func substitute(_ text: String, combination: MatrixExpansion.Combination?) -> Result<String, UnknownKey> {
        var output = ""
        var rest = Substring(text)
        while let range = rest.range(of: prefix) {
            let escaped = range.lowerBound > rest.startIndex && rest[rest.index(before: range.lowerBound)] == "$"
            output += rest[..<range.upperBound]
            rest = rest[range.upperBound...]
            guard !escaped, let close = rest.firstIndex(of: "}") else { continue }
            let key = String(rest[..<close])
            guard let value = combination?.value(of: key) else { return .failure(UnknownKey(key: key)) }
            output.removeLast(prefix.count)
            output += value
            rest = rest[rest.index(after: close)...]
        }
        return .success(output + rest)
    }

    struct UnknownKey: Error, Equatable {
        var key: String
    }
}

extension Diagnostic.Message {
    static func invalidMatrixKey(_ key: String, task: TaskID) -> Self {
        Self(
            "invalid matrix key '\(key)' in task '\(task)': use letters, digits and _, not starting with a digit",
            hint: key.contains("-")
                ? "write '\(key.replacingOccurrences(of: "-", with: "_"))': a key is also a variable in the task's env, MATRIX_\(key.uppercased().replacingOccurrences(of: "-", with: "_"))"
                : "a key is also a variable in the task's env, MATRIX_\(key.uppercased())")
    }
    static func matrixKeysShareVariable(_ first: String, _ second: String, task: TaskID) -> Self {
        Self(
            "matrix keys '\(first)' and '\(second)' of task '\(task)' would both be MATRIX_\(second.uppercased()) in the task's env",
            hint: "give the keys names that differ by more than case")
    }
    static func invalidMatrixValue(_ value: String, key: String, task: TaskID) -> Self {
        Self(
            "invalid value '\(value)' for matrix key '\(key)' of task '\(task)': a value is part of a task id; use 1 to 64 of the characters A-Z a-z 0-9 _ . -")
    }
    static func repeatedMatrixValue(_ value: String, key: String, task: TaskID) -> Self {
        Self("matrix key '\(key)' of task '\(task)' lists '\(value)' twice")
    }
    static func emptyMatrix(task: TaskID) -> Self {
        Self(
            "'matrix' of task '\(task)' has no keys: give at least one key with a list of values, such as 'os: [linux, mac]', or 'include' entries"
        )
    }
    static func emptyInclude(entry: Int, task: TaskID) -> Self {
        Self("item \(entry) of 'include' of the matrix of task '\(task)' is empty: with no matrix keys, each entry is a combination, named by its values")
    }
    static func tooManyCombinations(_ count: Int, task: TaskID) -> Self {
        Self(
            "'matrix' of task '\(task)' makes \(count == .max ? "too many" : String(count)) combinations; at most \(MatrixExpansion.maxCombinations) (as GitHub Actions allows)"
        )
    }
    static func noCombination(task: TaskID) -> Self {
        Self("'matrix' of task '\(task)' makes no combination: 'exclude' drops every one")
    }
    static func includeMissesKey(entry: Int, key: String, task: TaskID) -> Self {
        Self(
            "item \(entry) of 'include' of the matrix of task '\(task)' matches no combination, and gives no matrix key to name one of its own",
            hint: "give it a value for a matrix key, such as '\(key)': a new combination is named by its matrix values")
    }
    static func repeatedCombination(_ id: TaskID) -> Self {
        Self("the matrix makes the task '\(id)' twice: an 'include' repeats a combination")
    }
    static func keyMissingInCombination(_ key: String, field: String) -> Self {
        Self("'${matrix.\(key)}' in \(field): that combination, made by 'include', gives no '\(key)'")
    }
    static func unknownMatrixKey(_ key: String, field: String, hasMatrix: Bool, suggestion: String?) -> Self {
        guard hasMatrix else { return Self("'${matrix.\(key)}' in \(field): the task has no 'matrix'") }
        return Self("'${matrix.\(key)}' in \(field): the matrix has no key '\(key)'", hint: suggestion.map { "did you mean '\($0)'?" })
    }
}
