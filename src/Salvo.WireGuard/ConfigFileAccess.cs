using System.Runtime.Versioning;

namespace Salvo.WireGuard;

/// <summary>
/// wg-quick(8)'s check of the file that holds the private key: it warns when others may access both the file and the
/// folder it is in (<c>file mode &amp; folder mode &amp; 0007</c>, after resolving links), and goes on.
/// </summary>
[SupportedOSPlatform("linux")]
internal static class ConfigFileAccess
{
    private const UnixFileMode Others = UnixFileMode.OtherRead | UnixFileMode.OtherWrite | UnixFileMode.OtherExecute;

    /// <summary>wg-quick's warning line for <paramref name="path"/>, or null when others cannot reach it.</summary>
    public static string? Warning(string path)
    {
        var file = new FileInfo(path);
        var resolved = file.ResolveLinkTarget(returnFinalTarget: true) as FileInfo ?? file;
        var folder = resolved.Directory;
        if (folder is null)
        {
            return null;
        }

        var open = resolved.UnixFileMode & folder.UnixFileMode & Others;
        return open == 0 ? null : $"Warning: `{resolved.FullName}' is world accessible";
    }
}
