using Salvo.Tunnel;
using Salvo.Tunnel.Paths;
using Salvo.Tunnel.Protocol;

namespace Salvo.Benchmarks;

/// <summary>
/// How the storm's handshakes are answered: as the device answers them, copied by the receiving thread into the
/// engine's handshake queue and answered by the device's handshake thread (nice 5). The storm's run.sh builds the
/// older code with benchmarks/handshake-storm/before/HandshakeStormThread.cs in place of this file: there the
/// receiving thread answers them inline, as the device did then.
/// </summary>
internal static class HandshakeStormThread
{
    public const string Model = "queued for the handshake thread";

    /// <summary>Starts the handshake thread on <paramref name="engine"/>; disposing it stops the thread.</summary>
    public static IDisposable? Start(TunnelEngine engine, IBatchedOutput output)
    {
        var queue = new HandshakeQueue();
        var stop = new CancellationTokenSource();
        var thread = new HandshakeThread(engine, queue, output, "storm hs", e => Console.Error.WriteLine($"handshake thread: {e.Message}"), stop.Token);
        engine.UseHandshakeQueue(queue);
        thread.Start();
        return new Stopper(stop, thread);
    }

    private sealed class Stopper(CancellationTokenSource stop, HandshakeThread thread) : IDisposable
    {
        public void Dispose()
        {
            stop.Cancel();
            thread.Join(TimeSpan.FromSeconds(2));
            stop.Dispose();
        }
    }
}
