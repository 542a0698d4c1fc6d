import ArgumentParser

/// `flowrun completion bash|zsh|fish`: the completion script, as the hidden
/// `--generate-completion-script SHELL` prints it (mended for bash and fish), under a name that
/// `--help` lists, as `gh completion` and `kubectl completion` do.
struct CompletionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "completion",
        abstract: "Print the shell completion script for bash, zsh or fish.",
        discussion: """
            bash:  source <(flowrun completion bash)     (e.g. in ~/.bashrc)
            zsh:   flowrun completion zsh > "${fpath[1]}/_flowrun"
            fish:  flowrun completion fish > ~/.config/fish/completions/flowrun.fish
            """
    )

    enum Shell: String, ExpressibleByArgument, CaseIterable {
        case bash, zsh, fish
    }

    @Argument(help: "The shell: bash, zsh or fish.")
    var shell: Shell

    func run() {
        print(Self.script(for: shell))
    }

    /// The script the shell gets, the same whichever way it is asked for.
    static func script(for shell: Shell) -> String {
        switch shell {
        case .bash: BashCompletionScript.mended(Flowrun.completionScript(for: .bash))
        case .zsh: Flowrun.completionScript(for: .zsh)
        case .fish: FishCompletionScript.mended(Flowrun.completionScript(for: .fish))
        }
    }
}
