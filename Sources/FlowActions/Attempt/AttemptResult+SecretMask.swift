import FlowEngine

extension AttemptResult {
    /// This result with its failure reason masked (`SecretMask`) as the task's output lines are:
    /// a reason goes to the console, `::error`, the events, the run record, `logs` and JUnit.
    func masked(_ mask: SecretMask) -> AttemptResult {
        switch self {
        case .succeeded:
            self
        case .failed(let reason, let exitCode):
            .failed(reason: mask(reason), exitCode: exitCode)
        case .failedAdvising(let reason, let retryable, let notBefore):
            .failedAdvising(reason: mask(reason), retryable: retryable, notBeforeMilliseconds: notBefore)
        }
    }
}
