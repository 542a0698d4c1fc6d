import FlowPlanning
import Foundation

/// The secret values a download task's fields took, so that its failure reasons show them as
/// `***`, as `--dry-run` shows the fields: wherever they appear, also in a URL a redirect led
/// to (a token in a query is often carried along).
///
/// The values are found by setting each field beside its shown form (`PlannedTask.shown`):
/// what stands where the shown form has `***`.
struct SecretMask: Sendable {
    /// Longest first, so that a value holding another is masked whole.
    let secrets: [String]

    /// Each field as the task uses it, then as shown.
    init(_ fields: [(String, String)]) {
        let found = fields.filter { $0.0 != $0.1 }.flatMap { Self.values(in: $0.0, shownAs: $0.1) }
        secrets = Set(found.filter { !$0.isEmpty }).sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
    }

    /// What stands in `real` for each `***` of `shown` (`SecretName.values(in:shownAs:)`).
    static func values(in real: String, shownAs shown: String) -> [String] {
        SecretName.values(in: real, shownAs: shown)
    }

    func callAsFunction(_ text: String) -> String {
        secrets.reduce(text) { $0.replacingOccurrences(of: $1, with: SecretName.mask) }
    }
}
