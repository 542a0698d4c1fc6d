import FlowConsole
import FlowLoading
import Foundation
import Testing

@Suite struct TaskListTests {
    /// A description is the file's text: `"\e[2J"` in it must not clear the terminal of whoever
    /// lists the tasks, nor break the JSON.
    @Test func controlCharactersInADescriptionAreShownAsEscapes() throws {
        let text = "version: 1\ntasks:\n  a: {description: \"clear\\e[2J\\nnext\", shell: echo}\n"
        let workflow = try #require(WorkflowLoader.decode(Array(text.utf8), file: "w.yaml", directory: "/work", defaultName: "w").workflow)
        #expect(TaskList.text(workflow) == "tasks of w (w.yaml):\n* a:  clear\\x1B[2J\\nnext\n")
        let json = TaskList.json(workflow)
        #expect(!json.contains("\u{1B}"))
        let tasks = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(tasks.first?["description"] as? String == "clear\u{1B}[2J\nnext")
    }

    /// A task with neither description nor needs is listed as its id alone, without the padding
    /// that lines the others up: no trailing blanks for a script or a diff to trip on.
    @Test func aTaskWithNothingToShowEndsAtItsId() throws {
        let text = "version: 1\ntasks:\n  lint: {shell: echo}\n  build: {description: Build it, shell: echo}\n"
        let workflow = try #require(WorkflowLoader.decode(Array(text.utf8), file: "w.yaml", directory: "/work", defaultName: "w").workflow)
        #expect(TaskList.text(workflow) == "tasks of w (w.yaml):\n* lint:\n* build:  Build it\n")
    }
}
