using System.Globalization;
using System.Runtime.Versioning;
using Microsoft.Win32;
using Salvo.Perf.Platform;

namespace Salvo.Perf.Doctor;

/// <summary>Windows: the AFD setting that decides when a UDP send is copied or locked in place.</summary>
internal static class WindowsChecks
{
    public static IEnumerable<Finding> Run()
    {
        if (!HostOs.IsWindows)
        {
            yield break;
        }

        yield return FastSendDatagramThreshold();
    }

    [SupportedOSPlatform("windows")]
    private static Finding FastSendDatagramThreshold()
    {
        const string Key = @"SYSTEM\CurrentControlSet\Services\AFD\Parameters";
        using var parameters = Registry.LocalMachine.OpenSubKey(Key);
        var value = parameters?.GetValue("FastSendDatagramThreshold");
        return value is int threshold
            ? new Finding("FastSendDatagramThreshold", FindingStatus.Info, threshold.ToString(CultureInfo.InvariantCulture) + " bytes",
                "Datagrams up to this size are copied by AFD and complete at once; larger ones wait for the send to finish.")
            : new Finding("FastSendDatagramThreshold", FindingStatus.Info, "not set (default 1,024 bytes)",
                @"Datagrams over 1,024 bytes take AFD's slower locked path; consider HKLM\" + Key + @"\FastSendDatagramThreshold = 1500 (DWORD) and a reboot.");
    }
}
