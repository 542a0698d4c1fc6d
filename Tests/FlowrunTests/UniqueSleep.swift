/// A `sleep` duration that no other test uses at the same time, in this run or in another
/// checkout's run on the machine: the tests look for their tasks' leftovers by it in /proc
/// (`RunTests.processesMatching`), which lists every process of the machine. Nine random digits:
/// with five, another live suite's sleep matched about once in 90,000 pairs.
enum UniqueSleep {
    static func seconds() -> String { "1\(Int.random(in: 100_000_000...999_999_999))" }
}
