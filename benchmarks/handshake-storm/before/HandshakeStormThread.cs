using Salvo.Tunnel;
using Salvo.Tunnel.Paths;

namespace Salvo.Benchmarks;

/// <summary>
/// How the storm's handshakes are answered by the code before the handshake queue (copied over
/// benchmarks/Salvo.Benchmarks/HandshakeStormThread.cs in the older checkout by run.sh): inline, on the thread that
/// receives the batch, as that device's inbound loop did.
/// </summary>
internal static class HandshakeStormThread
{
    public const string Model = "answered inline by the receiving thread";

    public static IDisposable? Start(TunnelEngine engine, IBatchedOutput output) => null;
}
