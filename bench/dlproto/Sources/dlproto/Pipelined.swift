// --pipelined: each connection's reader hands full blocks to a writer thread of its own (two
// blocks a connection), which hashes, writes, fdatasyncs and renames, so that one large body is
// read while its previous block is written: one thread doing both waits for the disk between
// reads (the 1 GiB row).
import CXXHash
import Glibc

/// What the reader hands the writer with each block, in order; blocks alternate.
struct BlockMessage {
    var job = -1  // -1: no more files
    var count = 0
    var first = false
    var last = false
}

final class WriterLane: @unchecked Sendable {
    static let depth = 2
    let blocks: [UnsafeMutableRawPointer]
    var messages = [BlockMessage](repeating: BlockMessage(), count: depth)
    var free = sem_t()
    var full = sem_t()

    init() {
        blocks = (0..<Self.depth).map { _ in
            var block: UnsafeMutableRawPointer? = nil
            guard posix_memalign(&block, 4096, blockSize) == 0, let block else { fail("posix_memalign") }
            return block
        }
        sem_init(&free, 0, UInt32(Self.depth))
        sem_init(&full, 0, 0)
    }
}

func semWait(_ semaphore: UnsafeMutablePointer<sem_t>) {
    while sem_wait(semaphore) != 0 { guard errno == EINTR else { fail("sem_wait") } }
}

func writerLoop(_ lane: WriterLane) {
    guard let state = XXH3_createState() else { fail("XXH3_createState") }
    var out: Int32 = -1
    var slot = 0
    while true {
        semWait(&lane.full)
        let message = lane.messages[slot]
        let block = lane.blocks[slot]
        if message.job < 0 { return }
        let job = jobs[message.job]
        if message.first {
            out = open(job.partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | oDirect, 0o644)
            guard out >= 0 else { fail("cannot create \(job.partial): errno \(errno)") }
            XXH3_128bits_reset(state)
        }
        if message.count > 0 {
            XXH3_128bits_update(state, block, message.count)
            if message.count % 4096 != 0 {  // an unaligned tail: through the page cache
                let flags = fcntl(out, F_GETFL)
                guard fcntl(out, F_SETFL, flags & ~oDirect) == 0 else { fail("fcntl") }
            }
            writeAll(out, block, message.count)
        }
        sem_post(&lane.free)
        slot = (slot + 1) % WriterLane.depth
        if message.last {
            digests[message.job] = XXH3_128bits_digest(state)
            guard fdatasync(out) == 0 else { fail("fdatasync: errno \(errno)") }
            guard rename(job.partial, job.destination) == 0 else { fail("rename: errno \(errno)") }
            guard close(out) == 0 else { fail("close: errno \(errno)") }
        }
    }
}

func pipelinedWorker() {
    let lane = WriterLane()
    var writer = pthread_t()
    let box = Unmanaged.passRetained(lane).toOpaque()
    guard
        pthread_create(
            &writer, nil,
            { raw in
                writerLoop(Unmanaged<WriterLane>.fromOpaque(raw!).takeRetainedValue())
                return nil
            }, box) == 0
    else { fail("pthread_create") }
    var socketFD: Int32 = -1
    var slot = 0
    func post(_ message: BlockMessage) {
        lane.messages[slot] = message
        sem_post(&lane.full)
        slot = (slot + 1) % WriterLane.depth
    }
    while true {
        let index = nextJob.wrappingAdd(1, ordering: .relaxed).oldValue
        semWait(&lane.free)
        if index >= jobs.count {
            post(BlockMessage())
            break
        }
        let job = jobs[index]
        if socketFD < 0 { socketFD = connectTo(job) }
        job.request.withUnsafeBytes { writeAll(socketFD, $0.baseAddress!, $0.count) }
        var block = lane.blocks[slot]
        var have = 0
        var end: Int? = nil
        while end == nil {
            guard have < headRoom else { fail("head longer than \(headRoom) bytes") }
            let n = read(socketFD, block + have, headRoom - have)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { fail("connection closed before the head") }
            end = headEnd(block, have + n)
            have += n
        }
        let bodyStart = end!
        let (length, closeAfter) = parseHead(UnsafeRawBufferPointer(start: block, count: bodyStart))
        var fill = min(have - bodyStart, length)
        memmove(block, block + bodyStart, fill)
        var remaining = length - fill
        var first = true
        while true {
            while fill < blockSize && remaining > 0 {
                let n = read(socketFD, block + fill, min(blockSize - fill, remaining))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { fail("connection closed in the body") }
                fill += n
                remaining -= n
            }
            post(BlockMessage(job: index, count: fill, first: first, last: remaining == 0))
            if remaining == 0 { break }
            first = false
            fill = 0
            semWait(&lane.free)
            block = lane.blocks[slot]
        }
        if closeAfter {
            close(socketFD)
            socketFD = -1
        }
    }
    if socketFD >= 0 { close(socketFD) }
    pthread_join(writer, nil)
}
