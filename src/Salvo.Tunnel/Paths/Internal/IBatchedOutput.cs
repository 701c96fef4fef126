namespace Salvo.Tunnel.Paths;

/// <summary>An output that queues what the engine produces and sends it on <see cref="Flush"/>, as the device's loops do.</summary>
internal interface IBatchedOutput : ITunnelOutput
{
    void Flush();
}
