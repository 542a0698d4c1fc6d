import Testing

@testable import FlowActions

/// A run that never spawned a task's process (downloads, extractions and combines alone) skips
/// the walk of /proc for leftover processes at its end: nothing can be below flowrun then but
/// the watchdog.
@Suite struct TaskGroupsSpawnedTests {
    @Test func aSpawnIsRememberedEvenOneThatFailed() {
        let groups = TaskGroups()
        #expect(!groups.hasSpawned)
        // A spawn that returned no pid still counts: its vfork may have run a child.
        #expect(groups.spawning { nil } == nil)
        #expect(groups.hasSpawned)
    }
}
