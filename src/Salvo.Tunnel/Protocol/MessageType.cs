namespace Salvo.Tunnel.Protocol;

/// <summary>The first four bytes of every message, a little-endian integer (one type byte and three zero bytes).</summary>
internal enum MessageType : uint
{
    /// <summary>Not a protocol message.</summary>
    None = 0,

    /// <summary>Handshake initiation, 148 bytes.</summary>
    Initiation = 1,

    /// <summary>Handshake response, 92 bytes.</summary>
    Response = 2,

    /// <summary>Cookie reply, 64 bytes.</summary>
    CookieReply = 3,

    /// <summary>Transport data, 32 bytes or more.</summary>
    Transport = 4,
}
