// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "flowrun",
    products: [
        .executable(name: "flowrun", targets: ["flowrun"]),
        .library(name: "FlowKit", targets: ["FlowModel", "FlowLoading", "FlowPlanning", "FlowEngine", "FlowActions", "FlowConsole", "FlowState"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        .systemLibrary(name: "CArchive", pkgConfig: "libarchive", providers: [.apt(["libarchive-dev"])]),
        // gzip inflated with zlib, which checks each member's CRC-32 and length (libarchive does not).
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // A zip's entries inflated whole, and their CRC-32, with libdeflate (a third of zlib's CPU on the bench zip).
        .systemLibrary(name: "CDeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]),
        // The up-to-date state's file digests: XXH3-128, a tenth of SHA-256's CPU (README, "What the state keeps").
        .systemLibrary(name: "CXXHash", pkgConfig: "libxxhash", providers: [.apt(["libxxhash-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng16", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
        .target(name: "FlowModel"),
        .target(name: "FlowFiles", dependencies: ["FlowModel", "CLinux", "CXXHash"]),
        .target(name: "FlowLoading", dependencies: ["FlowModel", "CYAML"]),
        .target(name: "FlowPlanning", dependencies: ["FlowModel", "FlowFiles"]),
        .target(name: "FlowEngine", dependencies: ["FlowModel", "FlowPlanning", "FlowFiles"]),
        // The event stream's bytes, shared by the console and the state: the codec and the descriptor writer.
        .target(name: "FlowEvents", dependencies: ["FlowModel", "FlowFiles"]),
        .target(
            name: "FlowState",
            dependencies: [
                "FlowModel", "FlowPlanning", "FlowEngine", "FlowEvents", "FlowFiles", "CDeflate", .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .target(name: "FlowReport", dependencies: ["FlowModel", "FlowConsole", "FlowState", "FlowFiles"]),
        .target(name: "CLinux"),
        .target(name: "CImageCodec", dependencies: ["CPNG", "CJPEG"]),
        .target(
            name: "FlowActions",
            dependencies: [
                "FlowModel", "FlowPlanning", "FlowEngine", "FlowFiles", "CLinux", "CArchive", "CZlib", "CDeflate", "CImageCodec",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        .target(
            name: "FlowTestServer",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        .target(name: "FlowConsole", dependencies: ["FlowModel", "FlowPlanning", "FlowFiles", "FlowEvents"]),
        .target(name: "FlowExport", dependencies: ["FlowModel", "FlowPlanning", "FlowFiles"]),
        .target(name: "FlowTestSupport", dependencies: ["FlowModel", "FlowLoading", "FlowPlanning", "FlowEngine", "FlowEvents"]),
        .executableTarget(
            name: "flowrun",
            dependencies: [
                "FlowModel", "FlowLoading", "FlowPlanning", "FlowEngine", "FlowActions", "FlowConsole", "FlowState", "FlowReport", "FlowExport", "FlowFiles",
                "FlowEvents",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // A release build links the Swift runtime and Foundation into the binary: at every start
            // the loader binds ~7,700 fewer symbols in 14 fewer libraries (README, bench/README).
            // Compiled with it too, so that the objects name the static libraries to link.
            swiftSettings: [.unsafeFlags(["-static-stdlib"], .when(platforms: [.linux], configuration: .release))],
            linkerSettings: [.unsafeFlags(["-static-stdlib"], .when(platforms: [.linux], configuration: .release))]
        ),
        .testTarget(name: "FlowLoadingTests", dependencies: ["FlowLoading"]),
        .testTarget(name: "FlowStateTests", dependencies: ["FlowState", "FlowEvents", "FlowTestSupport"]),
        .testTarget(name: "FlowFilesTests", dependencies: ["FlowFiles", "FlowTestSupport"]),
        .testTarget(name: "FlowEventsTests", dependencies: ["FlowEvents"]),
        .testTarget(name: "FlowReportTests", dependencies: ["FlowReport"], exclude: ["validate_trace.py", "check_timeline.py"]),
        .testTarget(name: "FlowExportTests", dependencies: ["FlowEngine", "FlowExport", "FlowLoading", "FlowPlanning"], exclude: ["validate_export.py"]),
        .testTarget(name: "FlowPlanningTests", dependencies: ["FlowPlanning", "FlowLoading"]),
        .testTarget(
            name: "FlowConsoleTests", dependencies: ["FlowConsole", "FlowEvents", "FlowLoading", "FlowPlanning", "FlowTestSupport"],
            exclude: ["validate_events.py", "validate_junit.py", "junit-10.xsd"]),
        .testTarget(name: "FlowEngineTests", dependencies: ["FlowEngine", "FlowLoading", "FlowPlanning", "FlowTestSupport"]),
        .target(name: "CImageFixtures", dependencies: ["CPNG", "CJPEG"], path: "Tests/CImageFixtures"),
        .testTarget(
            name: "FlowActionsTests",
            dependencies: [
                "FlowActions", "FlowEngine", "FlowLoading", "FlowPlanning", "CImageFixtures", "CArchive", "FlowTestServer", "FlowTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .testTarget(
            name: "FlowrunTests", dependencies: ["flowrun", "FlowTestServer", "FlowTestSupport", .product(name: "Crypto", package: "swift-crypto")],
            exclude: ["Fixtures", "schema_agreement.py"]),
    ]
)

// One strict setting for every target, as swift-log does.
for target in package.targets where target.type != .system && !["CLinux", "CImageCodec", "CImageFixtures"].contains(target.name) {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny")
        ]
}
