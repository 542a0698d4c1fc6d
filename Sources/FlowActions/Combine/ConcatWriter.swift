/// `format: concat`: the inputs' bytes, one after another, as `cat` writes them.
enum ConcatWriter {
    /// `total`: the inputs' sizes when the task started, for progress.
    static func write(
        _ inputs: [CombineInputs.Input], total: Int64, to output: CombineOutput, stop: StopFlag, progress: ProgressThrottle
    ) throws(ActionFailure) {
        var done: Int64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: InputFile.blockSize, alignment: 16)
        defer { buffer.deallocate() }
        for input in inputs {
            try stop.throwIfStopped()
            try InputFile(input.path).readBlocks(into: buffer) { (block) throws(ActionFailure) in
                try stop.throwIfStopped()
                try output.write(block)
                done += Int64(block.count)
                progress.report(done, max(total, done))
            }
        }
    }
}
