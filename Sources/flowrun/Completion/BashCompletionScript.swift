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
        return colonWords(script.replacingOccurrences(of: commands, with: runs))
    }

    /// The tasks of an included file are `NS:ID`, and bash splits words at `:` (it is in
    /// `COMP_WORDBREAKS`), so `tools:g<TAB>` completed the word `g`. On a line with a `:`, the
    /// words are taken again as the line spells them, and bash is given what follows the last
    /// `:` of the word completed, as bash-completion's `__ltrim_colon_completions` does.
    static func colonWords(_ script: String) -> String {
        let entry = "\n_flowrun() {\n"
        guard script.contains(entry) else { return script }
        let wrapper = """

            _flowrun() {
                local -r line="${COMP_LINE:0:COMP_POINT}"
                if [[ "${line}" != *:* || "${COMP_WORDBREAKS}" != *:* ]]; then
                    __flowrun_words "$@"
                    return
                fi
                local -a COMP_WORDS
                read -r -a COMP_WORDS <<< "${line}"
                [[ -z "${line}" || "${line}" == *[[:space:]] ]] && COMP_WORDS+=('')
                local -i COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
                local -r word="${COMP_WORDS[COMP_CWORD]}"
                __flowrun_words "${1}" "${word}" "${COMP_WORDS[COMP_CWORD-1]}"
                local -r colon="${word%"${word##*:}"}"
                if [[ -n "${colon}" ]]; then COMPREPLY=("${COMPREPLY[@]#"${colon}"}"); fi
            }

            """
        return script.replacingOccurrences(of: entry, with: "\n__flowrun_words() {\n") + wrapper
    }
}
