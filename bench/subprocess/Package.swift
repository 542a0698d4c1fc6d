// swift-tools-version: 6.0
// A benchmark tool, not part of flowrun: swift-subprocess's cost per spawned process, for
// bench/run_bench.py (`--tools subprocess`). See bench/README.md, "Run benchmark".
import PackageDescription

let package = Package(
    name: "subprocess-bench",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(url: "https://github.com/swiftlang/swift-subprocess", exact: "1.0.2"),
    ],
    targets: [
        .executableTarget(
            name: "subprocess-spawn",
            dependencies: [.product(name: "Subprocess", package: "swift-subprocess")]
        ),
    ]
)
