// First, before anything else runs: SIGUSR1 and SIGUSR2 are held until `run` takes them.
let startingSignalMask = StartupSignals.hold()
StandardDescriptors.openClosedOnes()
Flowrun.runMain(startingSignalMask: startingSignalMask)
