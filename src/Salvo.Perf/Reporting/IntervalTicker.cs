using System.Diagnostics;

namespace Salvo.Perf.Reporting;

/// <summary>
/// Calls a report action every <c>interval</c> seconds on its own task until disposed, with the
/// interval's start and end in seconds since the ticker started; disposing waits for a running call.
/// </summary>
internal sealed class IntervalTicker : IDisposable
{
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;

    /// <param name="interval">Seconds between calls; 0 or less starts nothing.</param>
    /// <param name="report">Called with (start, end) of each interval.</param>
    public IntervalTicker(double interval, Action<double, double> report)
    {
        _loop = interval <= 0 ? Task.CompletedTask : Task.Run(() => RunAsync(interval, report), CancellationToken.None);
    }

    public void Dispose()
    {
        _stop.Cancel();
        _loop.Wait(TimeSpan.FromSeconds(5));
        _stop.Dispose();
    }

    private async Task RunAsync(double interval, Action<double, double> report)
    {
        var clock = Stopwatch.StartNew();
        var previous = 0.0;
        using var timer = new PeriodicTimer(TimeSpan.FromSeconds(interval));
        try
        {
            while (await timer.WaitForNextTickAsync(_stop.Token).ConfigureAwait(false))
            {
                var now = clock.Elapsed.TotalSeconds;
                report(previous, now);
                previous = now;
            }
        }
        catch (OperationCanceledException)
        {
            // Disposed.
        }
    }
}
