/// Keys that go-task, GitHub Actions, Dagu and GitLab CI users write in a task, with flowrun's
/// key for the same thing in the form it takes: the note on their unknown-key error.
///
/// Edit distance finds typos of flowrun's own keys; these are other tools' words for them
/// (`deps` is nowhere near `needs`), so they are looked up by name.
enum ForeignKeys {
    /// Whose key it is and what flowrun says instead, or nil for a key no other tool uses so.
    static func note(for key: String) -> String? {
        if let (owner, answer) = otherAnswers[key] { return "'\(key)' is \(owner); \(answer)" }
        guard let (owner, flowrun) = table[key] else { return nil }
        return "'\(key)' is \(owner); flowrun says \(flowrun)"
    }

    /// The same for a key at the top level of the file.
    static func topLevelNote(for key: String) -> String? {
        guard let (owner, flowrun) = topLevel[key] else { return nil }
        return "'\(key)' is \(owner); flowrun says \(flowrun)"
    }

    /// Quoted: in a `[...]` list YAML reads an unquoted `?.env.local` as a mapping key.
    private static let dotenv = "'dotenv: [.env, \"?.env.local\"]' (a list; '?' marks a file that may be missing)"
    private static let variables = "'env: {NAME: value}' (scripts read $NAME; ${NAME} expands in paths and URLs)"

    private static let topLevel: [String: (owner: String, flowrun: String)] = [
        "vars": ("go-task's", variables),
        "variables": ("GitLab CI's", variables),
        "dotenvs": ("not flowrun's", dotenv),
        "env_file": ("docker compose's", dotenv),
        "env_files": ("not flowrun's", dotenv),
        "includes": ("go-task's", "'include: {NS: path/to/other.yaml}' (its tasks become NS:ID)"),
        "jobs": ("GitHub Actions'", "'tasks:' (each job a task, its steps one 'shell: |' script)"),
        "steps": ("Dagu's", "'tasks:' (each step a task, keyed by its name)"),
    ]

    /// Keys with no flowrun form to name: what to do instead.
    private static let otherAnswers: [String: (owner: String, answer: String)] = [
        "platforms": ("go-task's", "flowrun runs a task wherever it runs: test `uname` in the script to skip a platform"),
        "dotenv": ("flowrun's at the top level only", "put 'dotenv: [.env]' there; a task's own variables go in its 'env'"),
    ]

    private static let needs = "'needs: [a, b]'"
    private static let shell =
        "'shell: make build' (a script; several lines in a 'shell: |' block) or 'shell: [make, build]' (a program and its arguments, no shell)"
    private static let workdir = "'workdir: build' (relative to the workflow file's folder)"
    private static let continueOnError = "'continue_on_error: true'"
    private static let retries = "'retries: 3' and 'retry_delay: 5s'"

    private static let table: [String: (owner: String, flowrun: String)] = [
        "deps": ("go-task's", needs),
        "depends": ("Dagu's", needs),
        "dependencies": ("not flowrun's", needs),
        "cmds": ("go-task's", shell),
        "command": ("Dagu's", shell),
        "script": ("Dagu's", shell),
        "run": ("GitHub Actions'", shell),
        "dir": ("go-task's", workdir),
        "working-directory": ("GitHub Actions'", workdir),
        "desc": ("go-task's", "'description: Build the app'"),
        "if": ("GitHub Actions'", "'when: failure' (one of success, failure, always; no expressions)"),
        "timeout-minutes": ("GitHub Actions'", "'timeout: 10m' (also 30s, 1h30m)"),
        "continue-on-error": ("GitHub Actions'", continueOnError),
        "ignore_error": ("go-task's", continueOnError),
        "continueOn": ("Dagu's", continueOnError),
        "retry": ("GitLab CI's", retries),
        "retryPolicy": ("Dagu's", retries),
        "vars": ("go-task's", variables),
        "variables": ("GitLab CI's", variables),
        "steps": ("GitHub Actions'", "one task per step, in order with 'needs', or several lines in one 'shell: |' script"),
        "strategy": ("GitHub Actions'", "'matrix: {os: [linux, mac]}' on the task itself (with 'exclude' and 'include' inside it)"),
    ]
}
