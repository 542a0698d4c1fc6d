import Dispatch

/// Where grace periods, timeouts and retry delays fire.
///
/// A queue of flowrun's own, not `DispatchQueue.global()`: the global queue runs about one
/// thread per core, so while those threads are busy a timer on it can fire seconds late, and a
/// task is held open past its timeout or grace period (seen in the test suite, where other
/// tests kept both threads busy: a one-second grace took 21 s). A queue made here gets a thread
/// of its own when the others are busy. Its work items are short: a signal, a wake-up, a spawn;
/// events made here are written elsewhere (`EventBus.flushElsewhere`).
public enum TimerQueue {
    public static let shared = DispatchQueue(label: "flowrun.timers")
}
