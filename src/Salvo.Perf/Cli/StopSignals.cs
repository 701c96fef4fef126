using System.Runtime.InteropServices;

namespace Salvo.Perf.Cli;

/// <summary>
/// The one place the process hears SIGINT, SIGTERM and SIGHUP. The first of them cancels <see cref="Token"/>, the
/// token every command runs under, so a command stops on each exactly as on Ctrl+C: the test in progress ends
/// cleanly, the totals are printed and what the command created is removed. A second signal of any kind gets
/// the default action (the process ends at once), as a second Ctrl+C always did. A signal the process inherited
/// as ignored (nohup's SIGHUP, a background job's SIGINT) stays ignored: the runtime installs no handler for it.
/// </summary>
internal sealed class StopSignals : IDisposable
{
    private readonly CancellationTokenSource _stop = new();
    private readonly List<PosixSignalRegistration> _registrations = [];
    private readonly Lock _lock = new();
    private StopSignal? _received;

    private StopSignals()
    {
    }

    /// <summary>Cancelled by the first stop signal.</summary>
    public CancellationToken Token => _stop.Token;

    /// <summary>The first stop signal received, or null while none has come.</summary>
    public StopSignal? Received
    {
        get
        {
            lock (_lock)
            {
                return _received;
            }
        }
    }

    /// <summary>Registers the handlers; dispose to hand the signals back to the runtime.</summary>
    public static StopSignals Register()
    {
        var signals = new StopSignals();
        signals.Listen(PosixSignal.SIGINT, StopSignal.Interrupt);
        signals.Listen(PosixSignal.SIGTERM, StopSignal.Terminate);
        signals.Listen(PosixSignal.SIGHUP, StopSignal.Hangup);
        return signals;
    }

    /// <summary>Stops the run as <paramref name="signal"/> would; true for the first request, false once stopping.</summary>
    public bool Request(StopSignal signal)
    {
        lock (_lock)
        {
            if (_received is not null)
            {
                return false;
            }

            _received = signal;
        }

        // Cancelling runs every registered callback (socket closes, report flushes); off the runtime's signal
        // thread, so that a second signal is still heard while they run.
        ThreadPool.UnsafeQueueUserWorkItem(static stop => stop.Cancel(), _stop, preferLocal: false);
        return true;
    }

    public void Dispose()
    {
        foreach (var registration in _registrations)
        {
            registration.Dispose();
        }

        _stop.Dispose();
    }

    private void Listen(PosixSignal posix, StopSignal signal)
    {
        try
        {
            _registrations.Add(PosixSignalRegistration.Create(posix, context => context.Cancel = Request(signal)));
        }
        catch (PlatformNotSupportedException)
        {
            // SIGHUP has no equivalent on some platforms; the others still stop the run.
        }
    }
}
