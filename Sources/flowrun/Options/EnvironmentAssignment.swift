import ArgumentParser
import FlowModel

/// `--env NAME=VALUE`.
struct EnvironmentAssignment: ExpressibleByArgument {
    var entry: EnvironmentEntry

    init?(argument: String) {
        guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else { return nil }
        entry = EnvironmentEntry(name: String(argument[..<equals]), value: String(argument[argument.index(after: equals)...]))
    }

    static var defaultCompletionKind: CompletionKind { .default }
}
