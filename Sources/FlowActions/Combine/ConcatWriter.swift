/// `format: concat`: the inputs' bytes, one after another, as `cat` writes them.
enum ConcatWriter {
    static func write(_ inputs: [InputFile], to output: AtomicOutputFile, control: CombineControl) throws(CombineFailure) {
        let total = inputs.reduce(0) { $0 + $1.size }
        var done: Int64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: InputFile.blockSize, alignment: 16)
        defer { buffer.deallocate() }
        for input in inputs {
            try input.readBlocks(into: buffer) { (block) throws(CombineFailure) in
                try control.checkCancelled()
                try output.append(block)
                done += Int64(block.count)
                control.progress(done, of: max(total, done), .bytes)
            }
        }
        control.progress(done, of: max(total, done), .bytes, final: true)
    }
}
