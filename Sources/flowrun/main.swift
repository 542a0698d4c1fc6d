Flowrun.runMain()
