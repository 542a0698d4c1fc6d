import ArgumentParser
import Testing

@testable import flowrun

/// `CommonRunLine` reads `flowrun [run] [-j N] [--events MODE] [--no-record] [--keep-going] FILE`
/// without ArgumentParser: it must make the very `RunCommand` ArgumentParser makes (every option,
/// defaults included, compared through the wrappers' stored values), and leave every other line
/// to ArgumentParser, whose help and errors then stay its own.
@Suite struct CommonRunLineTests {
    static let taken: [[String]] = [
        ["flow.yaml"], ["run", "flow.yaml"], ["-j", "2", "flow.yaml"], ["run", "-j", "2", "--events", "plain", "flow.yaml"],
        ["-j2", "flow.yaml"], ["--concurrency", "8", "flow.yaml"], ["--concurrency=3", "flow.yaml"], ["flow.yaml", "-j", "2"],
        ["--events", "jsonl", "flow.yaml"], ["--events=human", "flow.yaml"], ["--no-record", "flow.yaml"], ["--keep-going", "flow.yaml"],
        ["run", "--keep-going", "--no-record", "-j", "007", "--events", "plain", "bench/out/dag-5000.flow.yaml"], ["a task"],
        ["build"], ["flowrun.yml"],
    ]

    /// Lines it leaves to ArgumentParser: help, errors, names of commands, anything it does not read.
    static let left: [[String]] = [
        [], ["run"], ["--help"], ["-h"], ["run", "--help"], ["help"], ["help", "run"], ["validate", "flow.yaml"], ["list"], ["graph", "x"],
        ["-j", "0", "flow.yaml"], ["-j", "-1", "flow.yaml"], ["-j", "+2", "flow.yaml"], ["-j", "two", "flow.yaml"], ["-j", "flow.yaml"],
        ["-j"], ["-j2", "-j", "3", "flow.yaml"], ["-j=2", "flow.yaml"], ["-jv", "flow.yaml"], ["--concurrency=", "flow.yaml"],
        ["--events", "loud", "flow.yaml"], ["--events"], ["--events", "plain", "--events", "jsonl", "flow.yaml"], ["--no-record", "--no-record", "f"],
        ["flow.yaml", "build"], ["flow.yaml", "flow.yaml"], ["-", "flow.yaml"], ["", "flow.yaml"], ["--dry-run", "flow.yaml"], ["-v", "flow.yaml"],
        ["--force", "flow.yaml"], ["--resume", "flow.yaml"], ["--env", "A=1", "flow.yaml"], ["-d", "dir", "flow.yaml"], ["--grace", "1", "flow.yaml"],
        ["--evnets", "plain", "flow.yaml"], ["--version"], ["run", "run"], ["run", "help"], ["---completion", "run", "--", "x"],
        ["--engine-only", "flow.yaml"], ["--summary", "all", "flow.yaml"], ["--only", "a", "flow.yaml"], ["flow.yaml", "--bogus"],
    ]

    @Test(arguments: taken) func makesTheCommandArgumentParserMakes(_ words: [String]) throws {
        let common = try #require(CommonRunLine.parse(words), "\(words)")
        let parsed = try #require(try Flowrun.parseAsRoot(words) as? RunCommand, "\(words)")
        #expect(String(reflecting: common) == String(reflecting: parsed), "\(words)")
    }

    @Test(arguments: left) func leavesEveryOtherLineToArgumentParser(_ words: [String]) {
        #expect(CommonRunLine.parse(words) == nil, "\(words)")
    }

    /// The comparison sees a different value, and an option left unset (which would stop the
    /// run when read): ArgumentParser's wrappers show it as `*definition*`.
    @Test func theComparisonSeesADifferentOrUnsetOption() throws {
        let common = try #require(CommonRunLine.parse(["-j", "2", "flow.yaml"]))
        let parsed = try #require(try Flowrun.parseAsRoot(["-j", "3", "flow.yaml"]) as? RunCommand)
        #expect(String(reflecting: common) != String(reflecting: parsed))
        #expect(!String(reflecting: common).contains("*definition*"))
        var unset = RunCommand()
        unset.file = "flow.yaml"
        #expect(String(reflecting: unset).contains("*definition*"))
    }
}
