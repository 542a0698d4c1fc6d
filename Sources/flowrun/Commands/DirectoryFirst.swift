/// `flowrun -d DIR list`: the folder before the command, as `git -C DIR status` and `make -C DIR
/// target` take it. ArgumentParser would read it as `run -d DIR` with a task named list, so
/// the command is moved to the front: `flowrun list -d DIR`. Only for the commands that take
/// `-d`; any other word after DIR stays a task of `run`.
enum DirectoryFirst {
    private static let commands: Set<String> = ["run", "validate", "graph", "list"]

    static func reordered(_ arguments: [String]) -> [String] {
        guard let first = arguments.first else { return arguments }
        let width = first == "-d" || first == "--dir" ? 2 : first.hasPrefix("--dir=") || (first.hasPrefix("-d") && first.count > 2) ? 1 : 0
        guard width > 0, arguments.count > width, commands.contains(arguments[width]) else { return arguments }
        return [arguments[width]] + arguments[..<width] + arguments[(width + 1)...]
    }
}
