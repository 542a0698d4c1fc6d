import ArgumentParser
import FlowConsole

/// `--summary auto|all`.
extension SummaryMode: ExpressibleByArgument {}
