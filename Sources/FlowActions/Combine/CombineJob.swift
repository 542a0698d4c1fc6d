import FlowFiles
import FlowModel

/// One combine attempt's work, start to end, on the calling thread: expands the inputs,
/// writes `to` atomically in the action's format, and leaves nothing behind if it fails or
/// is cancelled.
struct CombineJob {
    var action: CombineAction
    /// The action's `inputs` as the workflow wrote them: errors name a pattern so.
    var writtenInputs: [String]? = nil
    var workdir: String
    /// The task's declared `outputs` besides `to`: input patterns leave them out too.
    var outputs: [String] = []
    /// Most pixels an input image's header may claim, and the combined image may have.
    var maxPixels: Int
    /// Where the output's digest is noted once it is in place.
    var digests = StreamedDigests.shared

    func run(stop: StopFlag, progress: ProgressThrottle) throws(ActionFailure) {
        let destination = action.to.value
        let inputs = try CombineInputs(
            patterns: action.inputs.map(\.value), written: writtenInputs, workdir: workdir, output: destination, outputs: outputs, base: action.base?.value,
            prefix: action.prefix?.value ?? ""
        ).files
        guard !inputs.isEmpty else { throw ActionFailure("no inputs") }
        try stop.throwIfStopped()
        let output = try CombineOutput(LinkedDestination.resolved(destination), digests: digests)
        do {
            switch action.format {
            case .image:
                try ImageCombiner.write(
                    inputs.map(\.path), options: action.image, maxPixels: maxPixels,
                    to: output, stop: stop, progress: progress)
            case .concat:
                try ConcatWriter.write(inputs, total: try Self.totalSize(of: inputs), to: output, stop: stop, progress: progress)
            case .tar, .tarGz, .zip:
                try ArchiveWriter.write(
                    inputs, total: try Self.totalSize(of: inputs), format: action.format, to: output,
                    stop: stop, progress: progress)
            }
            try stop.throwIfStopped()
            try output.commit()
        } catch {
            output.discard()
            throw error
        }
    }

    /// Every input looked at first: a missing one fails the task before any byte is written.
    /// The files are then opened one at a time, so that thousands of inputs need one descriptor.
    private static func totalSize(of inputs: [CombineInputs.Input]) throws(ActionFailure) -> Int64 {
        var total: Int64 = 0
        for input in inputs { total += try InputFile.size(of: input.path) }
        return total
    }
}

extension CombineFormat {
    /// What a combine's progress counts: the images placed, or the bytes written.
    var progressUnit: ProgressUnit { self == .image ? .entries : .bytes }
}
