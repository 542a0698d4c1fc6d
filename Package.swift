// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "flowrun",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "flowrun", targets: ["flowrun"]),
        .library(name: "FlowKit", targets: ["FlowModel", "FlowLoading", "FlowPlanning", "FlowConsole"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        .target(name: "FlowModel"),
        .target(name: "FlowLoading", dependencies: ["FlowModel", "CYAML"]),
        .target(name: "FlowPlanning", dependencies: ["FlowModel"]),
        .target(name: "FlowConsole", dependencies: ["FlowModel", "FlowPlanning"]),
        .executableTarget(
            name: "flowrun",
            dependencies: [
                "FlowModel", "FlowLoading", "FlowPlanning", "FlowConsole",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "FlowLoadingTests", dependencies: ["FlowLoading"]),
        .testTarget(name: "FlowPlanningTests", dependencies: ["FlowPlanning", "FlowLoading"]),
        .testTarget(name: "FlowrunTests", dependencies: ["flowrun"]),
    ]
)

// One strict setting for every target, as swift-log does.
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .enableUpcomingFeature("ExistentialAny"),
    ]
}
