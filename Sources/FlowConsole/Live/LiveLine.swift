/// One line of the live area, built piece by piece and cut to the terminal's width.
///
/// Widths are counted on the text before styling (escape codes take no columns), one column
/// per `Character`: the live area holds task ids (ASCII by the file format), numbers and the
/// bar's block characters, all one column wide.
struct LiveLine {
    /// How a piece is coloured, through `Style` (so never when colour is off).
    enum Tone {
        case plain, bold, dim, red, green, yellow, cyan
        /// Bold, in a task's colour (an SGR code from `TaskPrefixes`), as its output prefix.
        case task(String)
    }

    let width: Int
    let style: Style
    private(set) var text = ""
    private var used = 0
    private var full = false

    init(width: Int, style: Style) {
        self.width = width
        self.style = style
    }

    /// The columns still free.
    var remaining: Int { width - used }

    /// Appends `piece`, cut short with `…` where the line reaches its width.
    mutating func append(_ piece: String, _ tone: Tone = .plain) {
        guard !full, !piece.isEmpty else { return }
        let remaining = width - used
        let count = piece.count
        guard count > remaining else {
            used += count
            text += styled(piece, tone)
            return
        }
        full = true
        used = width
        if remaining > 0 { text += styled(String(piece.prefix(remaining - 1)) + "…", tone) }
    }

    private func styled(_ piece: String, _ tone: Tone) -> String {
        switch tone {
        case .plain: piece
        case .bold: style.bold(piece)
        case .dim: style.dim(piece)
        case .red: style.red(piece)
        case .green: style.green(piece)
        case .yellow: style.yellow(piece)
        case .cyan: style.cyan(piece)
        case .task(let colour): style.enabled ? "\u{1B}[1;\(colour)m\(piece)\u{1B}[0m" : piece
        }
    }
}
