using Salvo.Perf.Native;
using Salvo.Perf.Platform;

namespace Salvo.Perf.Tunnel;

/// <summary>What <c>wg genkey</c> checks before it prints a private key: whether standard output is a file others may read.</summary>
internal static class PrivateKeyFile
{
    // S_IRGRP | S_IROTH (octal 0044): a key its group or anyone else can read has leaked. wg genkey warns on any of the
    // others' bits (S_IRWXO); a group that can read the key is as much a leak.
    private const int GroupOrOthersRead = 0x24;

    // The permission bits, octal 0777, as ls and chmod show them.
    private const int Permissions = 0x1FF;

    /// <summary>The warning for a private key written to <paramref name="descriptor"/>, or null when it goes elsewhere than such a file.</summary>
    public static string? Warning(int descriptor) =>
        HostOs.IsLinux && Libc.StatxOf(descriptor, string.Empty, Libc.AtEmptyPath, Libc.StatxTypeAndMode, out var status) == 0
        && (status.Mask & Libc.StatxTypeAndMode) == Libc.StatxTypeAndMode
            ? WarningForMode(status.Mode)
            : null;

    /// <summary>The warning for a descriptor of <paramref name="mode"/>: only a regular file (not a pipe, a terminal or /dev/null) that group or others can read.</summary>
    public static string? WarningForMode(int mode) =>
        (mode & Libc.FileTypeMask) == Libc.RegularFile && (mode & GroupOrOthersRead) != 0
            ? $"salvo tunnel genkey: warning: writing a private key to a file that group or others can read (mode {Convert.ToString(mode & Permissions, 8).PadLeft(4, '0')}). " +
              "Consider setting the umask to 077 and trying again."
            : null;
}
