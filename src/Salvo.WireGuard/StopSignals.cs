using System.Runtime.InteropServices;

namespace Salvo.WireGuard;

/// <summary>
/// SIGINT, SIGTERM and SIGHUP: the first cancels <see cref="Token"/>, and the running command takes its interface
/// down (routes, status file and control socket with it) and exits 0, as wireguard-go does on each. A second signal
/// gets the default action, so a stuck shutdown can still be ended.
/// </summary>
internal sealed class StopSignals : IDisposable
{
    private readonly CancellationTokenSource _stop = new();
    private readonly List<PosixSignalRegistration> _registrations = [];

    private StopSignals()
    {
    }

    /// <summary>Cancelled by the first stop signal.</summary>
    public CancellationToken Token => _stop.Token;

    /// <summary>Registers the handlers; dispose to hand the signals back to the runtime.</summary>
    public static StopSignals Register()
    {
        var signals = new StopSignals();
        foreach (var signal in new[] { PosixSignal.SIGINT, PosixSignal.SIGTERM, PosixSignal.SIGHUP })
        {
            signals._registrations.Add(PosixSignalRegistration.Create(signal, context =>
            {
                if (!signals._stop.IsCancellationRequested)
                {
                    // The first: handled here, so the process does not end before the interface is down.
                    context.Cancel = true;
                    signals._stop.Cancel();
                }
            }));
        }

        return signals;
    }

    public void Dispose()
    {
        foreach (var registration in _registrations)
        {
            registration.Dispose();
        }

        _stop.Dispose();
    }
}
