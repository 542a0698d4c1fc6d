/// Whether the run is a CI job: there a pseudo-terminal (GitLab's, Buildkite's) is no person
/// watching, and a live view redrawn in place makes an unreadable log.
package enum ContinuousIntegration {
    /// The variables CI services set, as the `ci-info` and `is-ci` packages read them.
    package static let variables = ["CI", "GITHUB_ACTIONS", "BUILDKITE", "GITLAB_CI"]

    /// True when one of `variables` holds a true-ish value: `CI=false`, `CI=0`, `CI=no`,
    /// `CI=off` and an empty `CI=` say this is not CI (as a user who turns it off means).
    package static func isDetected(_ environment: [String: String]) -> Bool {
        variables.contains { environment[$0].map(isTrueish) ?? false }
    }

    private static func isTrueish(_ value: String) -> Bool {
        !["", "0", "false", "no", "off"].contains(value.lowercased())
    }
}
