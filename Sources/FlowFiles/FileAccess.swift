import Glibc

/// Who may read a file or folder flowrun makes.
package enum FileAccess: Sendable {
    /// What a new file gets from the user's umask (0666 & ~umask, folders 0777 & ~umask): task
    /// outputs. The umask flowrun started with (`StartupUmask`), not the one of the moment.
    case shared
    /// Only its owner (0600, folders 0700): state, run records and the cache, since task output
    /// and fingerprints may hold secrets.
    case owner

    package var fileMode: mode_t { StartupUmask.masking(self == .shared ? 0o666 : 0o600) }
    package var folderMode: mode_t { StartupUmask.masking(self == .shared ? 0o777 : 0o700) }
}
