using System.Net.Sockets;

namespace Salvo;

/// <summary>
/// A datagram was larger than the socket or the path allows (EMSGSIZE): with
/// <see cref="DatagramSocketOptions.DontFragment"/> on, larger than the path MTU permits.
/// </summary>
public sealed class DatagramTooLargeException : SocketException
{
    /// <summary>Creates the exception for a datagram of <paramref name="datagramSize"/> bytes against a limit of <paramref name="maxDatagramSize"/>.</summary>
    public DatagramTooLargeException(int datagramSize, int maxDatagramSize)
        : base((int)SocketError.MessageSize, Describe(datagramSize, maxDatagramSize))
    {
        DatagramSize = datagramSize;
        MaxDatagramSize = maxDatagramSize;
    }

    /// <summary>The payload size that was refused, in bytes.</summary>
    public int DatagramSize { get; }

    /// <summary>The largest payload the path allows, in bytes, or 0 when it could not be read.</summary>
    public int MaxDatagramSize { get; }

    private static string Describe(int size, int limit) => limit > 0
        ? $"The datagram of {size} bytes is larger than the path allows: at most {limit} bytes of payload fit in one packet (EMSGSIZE)."
        : $"The datagram of {size} bytes is larger than the socket or path allows (EMSGSIZE).";
}
