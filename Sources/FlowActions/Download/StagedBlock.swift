/// One `DirectWrites` block of a body, filled on the network thread from the parts as they
/// arrive, then handed whole to the file's hashing and write queues.
///
/// Why: handing each part (about 64 KiB) to the two queues cost two thread wake-ups a part, and
/// kept every part's receive buffer alive until both were done, so that the network layer
/// allocated (and faulted in) a fresh one for each read. Copied out at once, the receive buffer
/// is reused, and a 1 MiB file is two hand-offs to each queue instead of about sixteen.
///
/// Unchecked Sendable: it is filled by one thread, and only read once handed over; the memory
/// goes back to the pool when the last holder (the hashing or the write queue) lets go of it.
final class StagedBlock: @unchecked Sendable {
    private let memory: UnsafeMutableRawBufferPointer
    private(set) var count = 0

    init() {
        memory = DirectWrites.pool.take()
    }

    deinit {
        DirectWrites.pool.give(memory)
    }

    /// The bytes filled so far. A full block starts at an aligned address, so that
    /// `DirectWrites` writes it from here, without copying it again.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: memory[0..<count]) }

    var isFull: Bool { count == memory.count }

    /// Copies as much of `bytes` as the block has room for; returns how many were taken.
    func fill(from bytes: UnsafeRawBufferPointer) -> Int {
        let taken = min(bytes.count, memory.count - count)
        if taken > 0 { (memory.baseAddress! + count).copyMemory(from: bytes.baseAddress!, byteCount: taken) }
        count += taken
        return taken
    }

    /// Lets `read` fill the block's free space (from a socket, with no copy); returns how many
    /// bytes it put there.
    func fill(reading read: (UnsafeMutableRawBufferPointer) throws -> Int) rethrows -> Int {
        let taken = try read(UnsafeMutableRawBufferPointer(rebasing: memory[count...]))
        count += taken
        return taken
    }
}
