import ArgumentParser

/// ArgumentParser's bash script, mended for the default command.
///
/// `flowrun build` runs `run` on the word build, but the script offers only the commands for a
/// first word, and the commands again after a word that is none. Mended, a first word also
/// completes as run's FILE (workflow files and the tasks of the file found, as `task
/// bu<TAB>`), and later words as run's TASK. Should a later ArgumentParser write that branch
/// differently, the script passes unchanged.
enum BashCompletionScript {
    /// The script, when the command line asks for bash's: `--generate-completion-script bash`.
    static func requested(by arguments: [String]) -> String? {
        guard let index = arguments.firstIndex(of: "--generate-completion-script") ?? arguments.firstIndex(of: "--generate-completion-script=bash"),
            arguments[index].hasSuffix("=bash") || (index + 1 < arguments.count && arguments[index + 1] == "bash")
        else { return nil }
        return mended(Flowrun.completionScript(for: .bash))
    }

    static func mended(_ script: String) -> String {
        // The commands as ArgumentParser lists them: every subcommand, then help.
        let names = Flowrun.configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
        let commands = "        COMPREPLY+=($(compgen -W '\(names.joined(separator: " "))' -- \"${cur}\"))\n"
        let position = "\"${COMP_CWORD}\" \"$(__flowrun_cursor_index_in_current_word)\""
        let runs =
            "        if [[ ${#unparsed_words[@]} -eq 0 ]]; then\n" + "    " + commands
            + "            __flowrun_add_completions -W \"$(__flowrun_custom_complete ---completion run -- positional@0 \(position))\"\n"
            + "        else\n"
            + "            __flowrun_add_completions -W \"$(__flowrun_custom_complete ---completion run -- positional@1 \(position))\"\n"
            + "        fi\n"
        return script.replacingOccurrences(of: commands, with: runs)
    }
}
