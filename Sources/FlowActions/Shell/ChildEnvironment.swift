import Glibc

/// The environment children start with: flowrun's own, made into C strings once per run, with
/// each task's variables over it.
///
/// Spawning is most of the cost of a small task, so a spawn allocates only the task's own
/// variables, not a dictionary copy and a C string per variable of the whole block.
///
/// - Warning: immutable after `init`; `base` is freed by `deinit`, when no spawn can use it.
final class ChildEnvironment: @unchecked Sendable {
    private let base: [(name: String, entry: UnsafeMutablePointer<CChar>)]
    private let baseValues: [String: String]
    /// Each name's place in `base`: a spawn looks up its few overrides here rather than every
    /// base name in a set of them (a tenth of flowrun's instructions a task, before the spawn).
    private let baseIndexes: [String: Int]

    init(_ environment: [String: String]) {
        baseValues = environment
        base = environment.sorted { $0.key < $1.key }.map { ($0.key, strdup("\($0.key)=\($0.value)")!) }
        baseIndexes = Dictionary(uniqueKeysWithValues: base.enumerated().map { ($0.element.name, $0.offset) })
    }

    deinit {
        for (_, entry) in base { free(entry) }
    }

    /// The value a child sees for `name` once `overrides` are applied.
    func value(of name: String, overrides: [(name: String, value: String)]) -> String? {
        overrides.last { $0.name == name }?.value ?? baseValues[name]
    }

    /// Calls `body` with a NULL-terminated `envp`: the base without the names `overrides` set,
    /// then the overrides (the last of a name wins).
    func withEntries<R>(
        overrides: [(name: String, value: String)], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) throws -> R
    ) rethrows -> R {
        var own: [UnsafeMutablePointer<CChar>?] = []
        var names: Set<String> = []
        var replaced: [Int] = []
        for (name, value) in overrides.reversed() where names.insert(name).inserted {
            own.append(strdup("\(name)=\(value)"))
            if let index = baseIndexes[name] { replaced.append(index) }
        }
        defer { own.forEach { free($0) } }
        var entries: [UnsafeMutablePointer<CChar>?] = []
        entries.reserveCapacity(base.count + own.count + 1)
        for (index, (_, entry)) in base.enumerated() where !replaced.contains(index) { entries.append(entry) }
        entries += own
        entries.append(nil)
        return try entries.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }
}
