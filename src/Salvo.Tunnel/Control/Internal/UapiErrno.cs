namespace Salvo.Tunnel.Control;

/// <summary>
/// The <c>errno=</c> values of WireGuard's configuration protocol: a negated Linux errno, as wireguard-go's
/// ipc/uapi_unix.go defines them and as <c>wg</c> prints them back ("Invalid argument" for -22).
/// </summary>
internal static class UapiErrno
{
    public const int None = 0;

    /// <summary>-EIO: the request could not be read; wireguard-go answers it for a line over its scanner's limit.</summary>
    public const int IO = -5;

    /// <summary>-EINVAL: a key the protocol does not know, or a value it cannot take.</summary>
    public const int Invalid = -22;

    /// <summary>-EPROTO: a line that is not key=value.</summary>
    public const int Protocol = -71;

    /// <summary>-EMSGSIZE ("Message too long"): a request over the size or count limits; wireguard-go has none.</summary>
    public const int TooLarge = -90;

    /// <summary>-EADDRINUSE: the listen port (or the firewall mark of the socket) could not be set.</summary>
    public const int PortInUse = -98;
}
