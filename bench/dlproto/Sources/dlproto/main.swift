// A stand-alone prototype of a plain-http download reader: how fast can flowrun's promise
// (every byte hashed with XXH3-128, written past the page cache, fdatasynced, renamed onto
// its destination) go over keep-alive HTTP/1.1 when the body is read straight into the
// aligned block that is then written with O_DIRECT?
//
//     dlproto [--pipelined] CONNECTIONS LIST   (LIST: lines "http://host:port/path<TAB>destination")
//
// One thread a connection, blocking reads: a thread blocks only in its own system calls, so
// a download costs no hand-off between threads. With --pipelined each connection's blocks go
// to a writer thread of its own (Pipelined.swift), as flowrun's go to a file's queue. Plain
// http://, numeric IPv4 hosts, 200 responses with Content-Length only: enough to measure, not
// a client. DLPROTO_PRINT=1 prints each file's XXH3-128 as xxh128sum does.
import CXXHash
import Glibc
import Synchronization

let blockSize = 512 * 1024
let headRoom = 16 * 1024  // the first reads of a response: its head and the body's start
let oDirect: Int32 = 0o40000  // x86_64's O_DIRECT; Glibc's module does not import it

func fail(_ message: String) -> Never {
    fputs("dlproto: \(message)\n", stderr)
    exit(1)
}

struct Job {
    let host: String
    let port: UInt16
    let request: [UInt8]
    let destination: String
    let partial: String
}

func readWhole(_ path: String) -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { fail("cannot open \(path)") }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n >= 0 else { fail("cannot read \(path)") }
        if n == 0 { break }
        bytes += chunk[0..<n]
    }
    close(fd)
    return bytes
}

func parseJobs(_ text: [UInt8]) -> [Job] {
    var jobs: [Job] = []
    for line in text.split(separator: 10) where !line.isEmpty {
        let fields = line.split(separator: 9)
        guard fields.count == 2 else { fail("bad list line") }
        let url = String(decoding: fields[0], as: UTF8.self)
        let destination = String(decoding: fields[1], as: UTF8.self)
        guard url.hasPrefix("http://") else { fail("not plain http: \(url)") }
        let rest = url.dropFirst(7)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<slash]
        let path = slash == rest.endIndex ? "/" : String(rest[slash...])
        let colon = authority.lastIndex(of: ":")
        let host = String(colon.map { authority[..<$0] } ?? authority)
        let port = colon.flatMap { UInt16(authority[authority.index(after: $0)...]) } ?? 80
        let request = Array(
            "GET \(path) HTTP/1.1\r\nHost: \(authority)\r\nUser-Agent: dlproto\r\nAccept: */*\r\n\r\n".utf8)
        let lastSlash = destination.lastIndex(of: "/")
        let folder = lastSlash.map { String(destination[...$0]) } ?? ""
        let name = lastSlash.map { String(destination[destination.index(after: $0)...]) } ?? destination
        jobs.append(
            Job(
                host: host, port: port, request: request, destination: destination,
                partial: folder + "." + name + ".part"))
    }
    return jobs
}

var arguments = Array(CommandLine.arguments.dropFirst())
let pipelined = arguments.first == "--pipelined"
if pipelined { arguments.removeFirst() }
guard arguments.count == 2, let connections = Int(arguments[0]), connections > 0 else {
    fail("usage: dlproto [--pipelined] CONNECTIONS LIST")
}
let jobs = parseJobs(readWhole(arguments[1]))
let nextJob = Atomic<Int>(0)
let digests = UnsafeMutablePointer<XXH128_hash_t>.allocate(capacity: max(jobs.count, 1))

func connectTo(_ job: Job) -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { fail("socket") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = job.port.bigEndian
    guard inet_pton(AF_INET, job.host, &address.sin_addr) == 1 else { fail("not an IPv4 address: \(job.host)") }
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else { fail("connect: errno \(errno)") }
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    return fd
}

func writeAll(_ fd: Int32, _ base: UnsafeRawPointer, _ count: Int) {
    var done = 0
    while done < count {
        let n = write(fd, base + done, count - done)
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { fail("write: errno \(errno)") }
        done += n
    }
}

/// The head's fields that matter here, from `head` (status line to the blank line).
func parseHead(_ head: UnsafeRawBufferPointer) -> (length: Int, close: Bool) {
    let bytes = head.bindMemory(to: UInt8.self)
    guard bytes.count > 12, bytes[9] == 0x32, bytes[10] == 0x30, bytes[11] == 0x30 else {
        fail("not a 200 response")
    }
    var length = -1
    var close = false
    var lineStart = 0
    for index in 0..<bytes.count where bytes[index] == 10 {
        let line = UnsafeBufferPointer(rebasing: bytes[lineStart..<index])
        lineStart = index + 1
        guard let colon = line.firstIndex(of: 58) else { continue }
        let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
        var value = line[(colon + 1)...]
        while let first = value.first, first == 32 || first == 9 { value = value.dropFirst() }
        while let last = value.last, last == 13 || last == 32 || last == 9 { value = value.dropLast() }
        switch name {
        case "content-length":
            var number = 0
            for digit in value {
                guard digit >= 48 && digit <= 57 else { fail("bad Content-Length") }
                number = number * 10 + Int(digit - 48)
            }
            length = number
        case "transfer-encoding": fail("Transfer-Encoding is not handled")
        case "connection": close = String(decoding: value, as: UTF8.self).lowercased() == "close"
        default: break
        }
    }
    guard length >= 0 else { fail("no Content-Length") }
    return (length, close)
}

/// Finds "\r\n\r\n" in the first `count` bytes; the offset just past it.
func headEnd(_ base: UnsafeMutableRawPointer, _ count: Int) -> Int? {
    let bytes = base.assumingMemoryBound(to: UInt8.self)
    var index = 3
    while index < count {
        if bytes[index] == 10 && bytes[index - 1] == 13 && bytes[index - 2] == 10 && bytes[index - 3] == 13 {
            return index + 1
        }
        index += 1
    }
    return nil
}

func download(_ index: Int, _ socketFD: inout Int32, _ block: UnsafeMutableRawPointer, _ state: OpaquePointer) {
    let job = jobs[index]
    if socketFD < 0 { socketFD = connectTo(job) }
    job.request.withUnsafeBytes { writeAll(socketFD, $0.baseAddress!, $0.count) }
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
    memmove(block, block + bodyStart, fill)  // at most headRoom bytes, once a file
    var remaining = length - fill

    let out = open(job.partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | oDirect, 0o644)
    guard out >= 0 else { fail("cannot create \(job.partial): errno \(errno)") }
    XXH3_128bits_reset(state)
    while remaining > 0 || fill == blockSize {
        if fill == blockSize {
            XXH3_128bits_update(state, block, blockSize)
            writeAll(out, block, blockSize)
            fill = 0
            continue
        }
        let n = read(socketFD, block + fill, min(blockSize - fill, remaining))
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { fail("connection closed in the body") }
        fill += n
        remaining -= n
    }
    if fill > 0 {
        XXH3_128bits_update(state, block, fill)
        if fill % 4096 != 0 {  // an unaligned tail: through the page cache
            let flags = fcntl(out, F_GETFL)
            guard fcntl(out, F_SETFL, flags & ~oDirect) == 0 else { fail("fcntl") }
        }
        writeAll(out, block, fill)
    }
    digests[index] = XXH3_128bits_digest(state)
    guard fdatasync(out) == 0 else { fail("fdatasync: errno \(errno)") }
    guard rename(job.partial, job.destination) == 0 else { fail("rename: errno \(errno)") }
    guard close(out) == 0 else { fail("close: errno \(errno)") }
    if closeAfter {
        close(socketFD)
        socketFD = -1
    }
}

func worker() {
    var block: UnsafeMutableRawPointer? = nil
    guard posix_memalign(&block, 4096, blockSize) == 0, let block else { fail("posix_memalign") }
    guard let state = XXH3_createState() else { fail("XXH3_createState") }
    var socketFD: Int32 = -1
    while true {
        let index = nextJob.wrappingAdd(1, ordering: .relaxed).oldValue
        if index >= jobs.count { break }
        download(index, &socketFD, block, state)
    }
    if socketFD >= 0 { close(socketFD) }
}

var threads: [pthread_t] = []
for _ in 0..<min(connections, jobs.count) {
    var thread = pthread_t()
    let started =
        pipelined
        ? pthread_create(
            &thread, nil,
            { _ in
                pipelinedWorker(); return nil
            }, nil)
        : pthread_create(
            &thread, nil,
            { _ in
                worker(); return nil
            }, nil)
    guard started == 0 else { fail("pthread_create") }
    threads.append(thread)
}
for thread in threads { pthread_join(thread, nil) }

// Each destination folder fsynced once, at the end, as flowrun does (DownloadRunner.finishRun).
var folders = Set<String>()
for job in jobs { folders.insert(job.destination.lastIndex(of: "/").map { String(job.destination[..<$0]) } ?? ".") }
for folder in folders {
    let fd = open(folder.isEmpty ? "/" : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0, fsync(fd) == 0 else { fail("cannot fsync \(folder)") }
    close(fd)
}
if getenv("DLPROTO_PRINT") != nil {
    for index in jobs.indices {
        var canonical = XXH128_canonical_t()
        XXH128_canonicalFromHash(&canonical, digests[index])
        let hex = withUnsafeBytes(of: &canonical.digest) {
            $0.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
        }
        print("\(hex)  \(jobs[index].destination)")
    }
}
