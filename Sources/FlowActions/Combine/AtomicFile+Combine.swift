import FlowFiles

extension AtomicFile {
    /// `AtomicFile(destination:access:)` for a combine output, its failure as the task's.
    static func combineOutput(_ destination: String) throws(ActionFailure) -> AtomicFile {
        do {
            return try AtomicFile(destination: destination, access: .shared)
        } catch {
            throw ActionFailure(error.description)
        }
    }

    /// `write(_:)`, its failure as the task's.
    func append(_ bytes: UnsafeRawBufferPointer) throws(ActionFailure) {
        do {
            try write(bytes)
        } catch {
            throw ActionFailure(error.description)
        }
    }

    /// `commit()`, its failure as the task's.
    func commitOutput() throws(ActionFailure) {
        do {
            try commit()
        } catch {
            throw ActionFailure(error.description)
        }
    }
}
