import ArgumentParser

/// `flowrun schema`
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the JSON Schema of the workflow file format (for editors and yaml-language-server)."
    )

    func run() {
        print(WorkflowSchema.json)
    }
}
