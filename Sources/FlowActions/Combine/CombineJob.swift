import FlowModel

/// One combine attempt's work, start to end, on the calling thread: expands the inputs,
/// writes `to` atomically in the action's format, and leaves nothing behind if it fails or
/// is cancelled.
struct CombineJob {
    var action: CombineAction
    var workdir: String
    /// Most pixels an input image's header may claim, and the combined image may have.
    var maxPixels: Int

    func run(control: CombineControl) throws(CombineFailure) {
        let destination = action.to.value
        let inputs = try CombineInputs(patterns: action.inputs.map(\.value), workdir: workdir, output: destination).files
        guard !inputs.isEmpty else { throw CombineFailure("no inputs") }
        try control.checkCancelled()
        let output = try AtomicOutputFile(destination: destination)
        do {
            switch action.format {
            case .image:
                try ImageCombiner.write(inputs.map(\.path), options: action.image, maxPixels: maxPixels,
                                        to: output, control: control)
            case .concat:
                // Every input opened first: a missing one fails the task before any byte is written.
                try ConcatWriter.write(try inputs.map { (input) throws(CombineFailure) in try InputFile(input.path) },
                                       to: output, control: control)
            case .tar, .tarGz, .zip:
                let files = try inputs.map { (input) throws(CombineFailure) in (try InputFile(input.path), input.name) }
                try ArchiveWriter.write(files.map { (file: $0.0, name: $0.1) }, format: action.format, to: output, control: control)
            }
            try control.checkCancelled()
            try output.commit()
        } catch {
            output.discard()
            throw error
        }
    }
}
