import ArgumentParser
import Foundation

/// ArgumentParser's fish script, mended for fish 3.
///
/// The script asks `commandline -tC` for the cursor's place in the word being completed; fish
/// 3 (Debian 12 ships 3.6) has no such query, so every custom completion (FILE and TASK) got
/// no answer and printed an error. `commandline -ct`, the word up to the cursor, gives the
/// same number. Should a later ArgumentParser write the function differently, the script
/// passes unchanged.
enum FishCompletionScript {
    /// The script, when the command line asks for fish's: `--generate-completion-script fish`.
    static func requested(by arguments: [String]) -> String? {
        guard let index = arguments.firstIndex(of: "--generate-completion-script") ?? arguments.firstIndex(of: "--generate-completion-script=fish"),
            arguments[index].hasSuffix("=fish") || (index + 1 < arguments.count && arguments[index + 1] == "fish")
        else { return nil }
        return mended(Flowrun.completionScript(for: .fish))
    }

    static func mended(_ script: String) -> String {
        let fish3 = "    else\n        commandline -o $argv\n"
        return script.replacingOccurrences(of: fish3, with: "    else if test \"$argv\" = -tC\n        string length -- (commandline -ct)\n" + fish3)
    }
}
