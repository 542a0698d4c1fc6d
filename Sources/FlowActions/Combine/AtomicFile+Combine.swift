import FlowFiles

extension AtomicFile {
    /// `AtomicFile(destination:access:)` for a combine output, its failure as the task's.
    static func combineOutput(_ destination: String) throws(CombineFailure) -> AtomicFile {
        do {
            return try AtomicFile(destination: destination, access: .shared)
        } catch {
            throw CombineFailure(error.description)
        }
    }

    /// `write(_:)`, its failure as the task's.
    func append(_ bytes: UnsafeRawBufferPointer) throws(CombineFailure) {
        do {
            try write(bytes)
        } catch {
            throw CombineFailure(error.description)
        }
    }

    /// `commit()`, its failure as the task's.
    func commitOutput() throws(CombineFailure) {
        do {
            try commit()
        } catch {
            throw CombineFailure(error.description)
        }
    }
}
