import Foundation

/// The jobs of an exported GitHub workflow and GitHub's decision whether each runs, following
/// GitHub's documented semantics: a job's `if:` without `success()`, `failure()`, `always()` or
/// `cancelled()` is `success() && (...)`, and no `if:` is `success()`; `success()` holds when
/// every ancestor job (its needs, theirs, and so on) succeeded, `failure()` when one failed;
/// `needs.<id>.result` is `success`, `failure`, `cancelled` or `skipped`. No run is cancelled here.
struct GitHubConditionEvaluator {
    struct Job {
        var id: String
        var name: String
        var needs: [String]
        var condition: String?
    }

    enum EvaluationError: Error { case unexpected(String) }

    var jobs: [Job] = []

    /// The jobs of an export's text, as this exporter writes them (one `needs: [..]` line, one
    /// `if:` line).
    init(exported text: String) {
        var inJobs = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line == "jobs:" {
                inJobs = true
            } else if inJobs, line.hasPrefix("  "), !line.hasPrefix("   "), !line.hasPrefix("  #") {
                let id = Self.unquoted(String(line.dropFirst(2).prefix { $0 != ":" }))
                jobs.append(Job(id: id, name: id, needs: [], condition: nil))
            } else if inJobs, !jobs.isEmpty, line.hasPrefix("    name: ") {
                jobs[jobs.count - 1].name = Self.unquoted(String(line.dropFirst("    name: ".count)))
            } else if inJobs, !jobs.isEmpty, line.hasPrefix("    needs: [") {
                let list = line.dropFirst("    needs: [".count).dropLast()
                jobs[jobs.count - 1].needs = list.split(separator: ",").map { Self.unquoted($0.trimmingCharacters(in: .whitespaces)) }
            } else if inJobs, !jobs.isEmpty, line.hasPrefix("    if: ") {
                jobs[jobs.count - 1].condition = Self.unquoted(String(line.dropFirst("    if: ".count)))
            }
        }
    }

    /// A scalar as written, without its double quotes (the exports hold no escapes in these).
    static func unquoted(_ text: String) -> String {
        text.count >= 2 && text.hasPrefix("\"") && text.hasSuffix("\"") ? String(text.dropFirst().dropLast()) : text
    }

    /// Each job's result by its `name`, given which jobs fail when they run (by name).
    func results(failing: Set<String>) throws -> [String: String] {
        var result: [String: String] = [:]
        var pending = jobs
        while !pending.isEmpty {
            guard let index = pending.firstIndex(where: { job in job.needs.allSatisfy { result[$0] != nil } }) else {
                throw EvaluationError.unexpected("the jobs' needs have a cycle")
            }
            let job = pending.remove(at: index)
            let runs = try decide(job, results: result)
            result[job.id] = runs ? (failing.contains(job.name) ? "failure" : "success") : "skipped"
        }
        return Dictionary(uniqueKeysWithValues: jobs.map { ($0.name, result[$0.id]!) })
    }

    private func ancestors(of job: Job) -> [String] {
        var seen = Set<String>()
        var order = job.needs
        var next = 0
        while next < order.count {
            let id = order[next]
            next += 1
            guard seen.insert(id).inserted, let need = jobs.first(where: { $0.id == id }) else { continue }
            order += need.needs
        }
        return Array(seen)
    }

    private func decide(_ job: Job, results: [String: String]) throws -> Bool {
        let ancestorResults = ancestors(of: job).map { results[$0]! }
        var context = Context(
            needs: Dictionary(uniqueKeysWithValues: job.needs.map { ($0, results[$0]!) }),
            success: ancestorResults.allSatisfy { $0 == "success" }, failure: ancestorResults.contains("failure"))
        guard var text = job.condition else { return context.success }
        text = text.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("${{"), text.hasSuffix("}}") { text = String(text.dropFirst(3).dropLast(2)) }
        let statusChecked = ["success(", "failure(", "always(", "cancelled("].contains { text.contains($0) }
        context.tokens = try Self.tokens(text)
        let value = try context.parseOr()
        guard context.position == context.tokens.count else { throw EvaluationError.unexpected("text after the expression: \(text)") }
        return (statusChecked || context.success) && value.truthy
    }

    enum Value: Equatable {
        case string(String)
        case bool(Bool)
        case array([String])

        var truthy: Bool {
            switch self {
            case .string(let text): return !text.isEmpty
            case .bool(let flag): return flag
            case .array: return true
            }
        }
    }

    static func tokens(_ text: String) throws -> [String] {
        var tokens: [String] = []
        var characters = Array(text)[...]
        while let first = characters.first {
            if first == " " {
                characters.removeFirst()
            } else if first == "'" {
                let body = characters.dropFirst().prefix { $0 != "'" }
                guard characters.count > body.count + 1 else { throw EvaluationError.unexpected("unterminated string in \(text)") }
                tokens.append("'" + String(body) + "'")
                characters = characters.dropFirst(body.count + 2)
            } else if let two = ["&&", "||", "==", "!="].first(where: { characters.starts(with: $0) }) {
                tokens.append(two)
                characters = characters.dropFirst(2)
            } else if "()!,".contains(first) {
                tokens.append(String(first))
                characters.removeFirst()
            } else {
                let word = characters.prefix { $0.isLetter || $0.isNumber || "._-*".contains($0) }
                guard !word.isEmpty else { throw EvaluationError.unexpected("unexpected '\(first)' in \(text)") }
                tokens.append(String(word))
                characters = characters.dropFirst(word.count)
            }
        }
        return tokens
    }

    /// A recursive-descent reading of GitHub's expression grammar, as far as exports use it.
    struct Context {
        var needs: [String: String]
        var success: Bool
        var failure: Bool
        var tokens: [String] = []
        var position = 0

        init(needs: [String: String], success: Bool, failure: Bool) {
            self.needs = needs
            self.success = success
            self.failure = failure
        }

        mutating func take(_ token: String) -> Bool {
            guard position < tokens.count, tokens[position] == token else { return false }
            position += 1
            return true
        }

        mutating func parseOr() throws -> Value {
            var value = try parseAnd()
            while take("||") {
                let right = try parseAnd()
                value = .bool(value.truthy || right.truthy)
            }
            return value
        }

        mutating func parseAnd() throws -> Value {
            var value = try parseComparison()
            while take("&&") {
                let right = try parseComparison()
                value = .bool(value.truthy && right.truthy)
            }
            return value
        }

        mutating func parseComparison() throws -> Value {
            let left = try parseUnary()
            if take("==") { return .bool(try parseUnary() == left) }
            if take("!=") { return .bool(try parseUnary() != left) }
            return left
        }

        mutating func parseUnary() throws -> Value {
            if take("!") { return .bool(!(try parseUnary().truthy)) }
            return try parsePrimary()
        }

        mutating func parsePrimary() throws -> Value {
            guard position < tokens.count else { throw EvaluationError.unexpected("the expression ends early") }
            let token = tokens[position]
            position += 1
            if token == "(" {
                let value = try parseOr()
                guard take(")") else { throw EvaluationError.unexpected("no ')'") }
                return value
            }
            if token.hasPrefix("'") { return .string(String(token.dropFirst().dropLast())) }
            if take("(") {
                var arguments: [Value] = []
                if !take(")") {
                    repeat { arguments.append(try parseOr()) } while take(",")
                    guard take(")") else { throw EvaluationError.unexpected("no ')' after the arguments of \(token)") }
                }
                return try call(token, arguments)
            }
            let parts = token.split(separator: ".").map(String.init)
            guard parts.count == 3, parts[0] == "needs", parts[2] == "result" else { throw EvaluationError.unexpected("unknown name \(token)") }
            if parts[1] == "*" { return .array(needs.keys.sorted().map { needs[$0]! }) }
            guard let result = needs[parts[1]] else { throw EvaluationError.unexpected("\(parts[1]) is not a need of the job") }
            return .string(result)
        }

        func call(_ name: String, _ arguments: [Value]) throws -> Value {
            switch (name, arguments.count) {
            case ("success", 0): return .bool(success)
            case ("failure", 0): return .bool(failure)
            case ("always", 0): return .bool(true)
            case ("cancelled", 0): return .bool(false)
            case ("contains", 2):
                guard case .array(let items) = arguments[0], case .string(let item) = arguments[1] else {
                    throw EvaluationError.unexpected("contains over \(arguments)")
                }
                return .bool(items.contains(item))
            default: throw EvaluationError.unexpected("unknown function \(name) of \(arguments.count) arguments")
            }
        }
    }
}
