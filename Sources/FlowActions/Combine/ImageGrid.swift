import FlowModel

/// Where each input of `format: image` goes: cells of one size, in a row, a column or a grid
/// filled row by row.
struct ImageGrid: Equatable {
    var columns: Int
    var rows: Int
    var cellWidth: Int
    var cellHeight: Int

    /// Without `columns`, a grid is as square as it can be: ceil(sqrt(count)) columns. With
    /// more columns than images, the empty cells stay: the width is what was asked for.
    init(count: Int, layout: ImageLayout, columns: Int?, cellWidth: Int, cellHeight: Int) {
        switch layout {
        case .row: self.columns = count
        case .column: self.columns = 1
        case .grid: self.columns = max(1, columns ?? Int(Double(count).squareRoot().rounded(.up)))
        }
        rows = (count + self.columns - 1) / self.columns
        self.cellWidth = cellWidth
        self.cellHeight = cellHeight
    }

    var width: Int { columns * cellWidth }
    var height: Int { rows * cellHeight }

    /// The rectangle the image of `index`, `width` by `height`, takes once scaled to fit its
    /// cell (keeping its aspect ratio, up or down) and centred in it.
    func placement(of index: Int, width: Int, height: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        let scale = min(Double(cellWidth) / Double(width), Double(cellHeight) / Double(height))
        let fitted = (
            width: min(cellWidth, max(1, Int((Double(width) * scale).rounded()))),
            height: min(cellHeight, max(1, Int((Double(height) * scale).rounded())))
        )
        let cell = (x: index % columns * cellWidth, y: index / columns * cellHeight)
        return (cell.x + (cellWidth - fitted.width) / 2, cell.y + (cellHeight - fitted.height) / 2, fitted.width, fitted.height)
    }
}
