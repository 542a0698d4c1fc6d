import Glibc
import NIOConcurrencyHelpers

/// A download's bytes written with `O_DIRECT`, past the page cache, in whole aligned blocks.
///
/// A download must be on disk before its rename anyway (`PartialFile.finish` fsyncs it), so
/// copying it into the page cache first and having the kernel write it back from there is
/// work done twice: measured on this machine's ext4, 1 GiB written through the page cache and
/// fdatasynced took 0.95-2.5 s of system time, with `O_DIRECT` 0.10-0.14 s, at the disk's
/// full speed with one 512 KiB write in flight. The bytes are gathered in a staging block (from
/// a small pool, reused across files) until it is full, then written in one call at an
/// aligned offset; the last, partial block goes through the page cache (`finishDirect`).
///
/// Not thread-safe: its `PartialFile`'s queue uses it.
final class DirectWrites {
    /// 512 KiB: as fast as 1 and 4 MiB with one write in flight here (`dd oflag=direct`), and
    /// half the memory of 1 MiB for the 8 blocks of 8 downloads at once.
    static let blockSize = 512 << 10
    /// What `O_DIRECT` wants of offsets, lengths and memory on any Linux block device.
    static let alignment = 4096

    private let descriptor: Int32
    private var block: UnsafeMutableRawBufferPointer?
    /// Bytes in `block`, not yet written.
    private(set) var staged = 0

    /// `O_DIRECT` set on `descriptor`, whose offset must be aligned; nil where the file system
    /// refuses it (the caller writes through the page cache).
    init?(descriptor: Int32, offset: Int64) {
        guard offset % Int64(Self.alignment) == 0, Self.setDirect(descriptor, true) else { return nil }
        self.descriptor = descriptor
    }

    deinit {
        if let block { Self.pool.give(block) }
    }

    /// Copies as much of `bytes` into the staging block as it holds; writes the block once
    /// full. Returns how many bytes were taken. A write that the file system refuses with
    /// `EINVAL` (no `O_DIRECT` for this file after all) goes through the page cache instead.
    func take(_ bytes: UnsafeRawBufferPointer) throws(WriteError) -> Int {
        // A whole block at an aligned address (a `StagedBlock`) is written from where it lies.
        if staged == 0, bytes.count >= Self.blockSize, Int(bitPattern: bytes.baseAddress) % Self.alignment == 0 {
            try write(UnsafeRawBufferPointer(rebasing: bytes[0..<Self.blockSize]))
            return Self.blockSize
        }
        let block = block ?? Self.pool.take()
        self.block = block
        let count = min(bytes.count, block.count - staged)
        (block.baseAddress! + staged).copyMemory(from: bytes.baseAddress!, byteCount: count)
        staged += count
        if staged == block.count {
            try write(UnsafeRawBufferPointer(block))
            staged = 0
        }
        return count
    }

    /// Writes what is staged through the page cache (its length is not aligned) and turns
    /// `O_DIRECT` off: the file then takes further writes as any other.
    func finishDirect() throws(WriteError) {
        defer { release() }
        guard Self.setDirect(descriptor, false) else { throw WriteError(code: errno) }
        if let block, staged > 0 {
            try Self.writeAll(descriptor, UnsafeRawBufferPointer(rebasing: block[0..<staged]))
        }
        staged = 0
    }

    /// Drops what is staged and turns `O_DIRECT` off: the file is emptied or removed.
    func discard() {
        staged = 0
        release()
        _ = Self.setDirect(descriptor, false)
    }

    private func release() {
        if let block { Self.pool.give(block) }
        block = nil
    }

    /// A whole block, with `O_DIRECT`; through the page cache from the first `EINVAL` (a file
    /// system that takes the flag but not the write) or short write on (an unaligned rest).
    private func write(_ bytes: UnsafeRawBufferPointer) throws(WriteError) {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            if (written < 0 && errno == EINVAL) || (written > 0 && written % Self.alignment != 0) {
                if written > 0 { offset += written }
                guard Self.setDirect(descriptor, false) else { throw WriteError(code: errno) }
                return try Self.writeAll(descriptor, UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            }
            guard written > 0 else { throw WriteError(code: written == 0 ? ENOSPC : errno) }
            offset += written
        }
    }

    /// `write(2)` until all of `bytes` is written; the errno of a failure.
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(WriteError) {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw WriteError(code: written == 0 ? ENOSPC : errno) }
            offset += written
        }
    }

    /// A failed write's errno.
    struct WriteError: Error {
        var code: Int32
    }

    /// Sets or clears `O_DIRECT` on an open file.
    private static func setDirect(_ descriptor: Int32, _ on: Bool) -> Bool {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0 else { return false }
        return fcntl(descriptor, F_SETFL, on ? flags | oDirect : flags & ~oDirect) == 0
    }

    /// Linux's `O_DIRECT`, which Swift's Glibc module does not import (a GNU extension).
    #if arch(x86_64) || arch(i386)
    static let oDirect: Int32 = 0o40_000
    #else
    static let oDirect: Int32 = 0o200_000
    #endif

    /// Staging blocks kept for the next file, so that 200 downloads do not map and fault in
    /// 200 fresh MiB: beyond `kept`, blocks are freed. 16: eight transfers at once each hold
    /// about two (`StagedBlock`: one filling, one being hashed and written).
    static let pool = BlockPool(kept: 16)

    /// Unchecked: the blocks are raw memory, each used by one file at a time, handed over
    /// under the lock.
    final class BlockPool: @unchecked Sendable {
        private let lock = NIOLock()
        private var free: [UnsafeMutableRawBufferPointer] = []
        private let kept: Int

        init(kept: Int) { self.kept = kept }

        func take() -> UnsafeMutableRawBufferPointer {
            lock.withLock { free.popLast() } ?? .allocate(byteCount: DirectWrites.blockSize, alignment: DirectWrites.alignment)
        }

        func give(_ block: UnsafeMutableRawBufferPointer) {
            let keep = lock.withLock {
                guard free.count < kept else { return false }
                free.append(block)
                return true
            }
            if !keep { block.deallocate() }
        }
    }
}
