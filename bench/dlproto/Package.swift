// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "dlproto",
    targets: [
        .systemLibrary(name: "CXXHash", pkgConfig: "libxxhash"),
        .executableTarget(
            name: "dlproto", dependencies: ["CXXHash"]),
    ],
    swiftLanguageModes: [.v5]
)
