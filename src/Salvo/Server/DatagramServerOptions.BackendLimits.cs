namespace Salvo.Server;

/// <summary>
/// What the chosen backend cannot take, refused before anything is bound: the platform states each rule once (AF_XDP:
/// one socket per interface, bound to that interface's own address) and the options only name the option it is about.
/// </summary>
public sealed partial class DatagramServerOptions
{
    private IEnumerable<(string Option, string Message)> BackendLimitErrors()
    {
        if (Workers > 1 && Pal.Platform.Current.RefuseSharedPort(Backend) is string shared)
        {
            yield return (nameof(Workers), $"Workers must be 1 with Backend {Backend} (was {Workers}): {shared}.");
        }

        if (EndPoint is { } endPoint && Pal.Platform.Current.RefuseLocalAddress(Backend, endPoint.Address) is string address)
        {
            yield return (nameof(EndPoint), $"EndPoint with Backend {Backend} {address}.");
        }
    }
}
