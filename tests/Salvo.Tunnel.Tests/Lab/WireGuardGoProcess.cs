using System.Diagnostics;
using Salvo.Tests.Lab;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Lab;

/// <summary>wireguard-go running in a lab namespace, configured from wg-format text; ended by its own PID on dispose.</summary>
internal sealed class WireGuardGoProcess : IDisposable
{
    private readonly Process _process;

    public WireGuardGoProcess(string host, string interfaceName, string configuration)
    {
        var start = new ProcessStartInfo("ip") { UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (var argument in new[] { "netns", "exec", host, ExternalTool.Find("wireguard-go")!, "-f", interfaceName })
        {
            start.ArgumentList.Add(argument);
        }

        // wireguard-go refuses to run on Linux without this, pointing at the kernel module instead.
        start.Environment["WG_I_PREFER_BUGGY_USERSPACE_TO_POLISHED_KMOD"] = "1";
        _process = Process.Start(start)!;
        try
        {
            WaitForInterface(host, interfaceName);
            var file = Path.GetTempFileName();
            File.WriteAllText(file, configuration);
            try
            {
                NetworkLab.Exec(host, ExternalTool.Find("wg")!, $"setconf {interfaceName} {file}");
            }
            finally
            {
                File.Delete(file);
            }
        }
        catch
        {
            Dispose();
            throw;
        }
    }

    public static string? WhyUnavailable() =>
        ExternalTool.Find("wireguard-go") is null ? "wireguard-go is not installed (apt-get install wireguard-go)"
        : ExternalTool.Find("wg") is null ? "wg is not installed (apt-get install wireguard-tools)"
        : null;

    public void Dispose()
    {
        if (!_process.HasExited)
        {
            _process.Kill();
            _process.WaitForExit(5_000);
        }

        _process.Dispose();
    }

    private static void WaitForInterface(string host, string name)
    {
        for (var attempt = 0; attempt < 50; attempt++)
        {
            try
            {
                NetworkLab.Exec(host, "ip", $"link show {name}");
                return;
            }
            catch (InvalidOperationException)
            {
                Thread.Sleep(100);
            }
        }

        throw new TimeoutException($"{name} did not appear in {host} within 5 s");
    }
}
