/// Values the process lets go of only by exiting.
///
/// Tearing down a 100,000-task workflow and its plan, array by array and string by string,
/// costs a free per allocation made loading them, and the kernel takes the memory back at
/// exit anyway. As clang does with -disable-free, the command keeps what it loaded alive
/// instead. Only for values that live to the end of the command: each kept value stays.
enum KeptUntilExit {
    static func keep(_ value: Any) {
        _ = Unmanaged.passRetained(Box(value))
    }

    private final class Box {
        let value: Any
        init(_ value: Any) { self.value = value }
    }
}
