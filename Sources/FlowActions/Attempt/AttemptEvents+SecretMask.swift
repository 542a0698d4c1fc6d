import FlowEngine

extension AttemptEvents {
    /// These events with every output line masked (`SecretMask`) before it becomes an event, so
    /// that each sink (console, events file, run record, `logs`, JUnit) gets the masked line, as
    /// GitHub Actions masks a secret in every log line. A value split across two lines, or across
    /// the cut of a line longer than `ChildProcess.maxLineBytes`, is not masked.
    ///
    /// A task without secret values keeps its events as they are: nothing is added per line.
    func masking(_ mask: SecretMask) -> AttemptEvents {
        guard !mask.secrets.isEmpty else { return self }
        var masked = self
        masked.output = { [output] stream, lines in output(stream, lines.map(mask.callAsFunction)) }
        return masked
    }
}
