using System.Net;

namespace Salvo.Streams;

/// <summary>How a <see cref="MessageTransportServer"/> listens. Checked when it starts; a bad value names its option.</summary>
public sealed class MessageTransportServerOptions
{
    /// <summary>
    /// The address and port for both UDP and TCP. With port 0 one free port number is found that both protocols can
    /// bind. Defaults to 127.0.0.1 with port 0.
    /// </summary>
    public IPEndPoint EndPoint { get; set; } = new(IPAddress.Loopback, 0);

    /// <summary>Whether to listen on UDP at all; without it, <see cref="TransportMode.UdpFirst"/> clients fall back to TCP. Defaults to true.</summary>
    public bool EnableUdp { get; set; } = true;

    /// <summary>
    /// Whether to answer UDP HELLOs. Off, the UDP port stays open (data datagrams are still handled) but
    /// <see cref="TransportMode.UdpFirst"/> clients time out and use TCP. Defaults to true.
    /// </summary>
    public bool AnswerHandshake { get; set; } = true;

    /// <summary>Datagrams received per call on the UDP socket. Defaults to 32.</summary>
    public int UdpBatchSize { get; set; } = 32;

    /// <summary>
    /// SO_RCVBUF of the UDP socket, in bytes: what holds a burst from many clients while the handler is busy; what
    /// overflows it is counted in <see cref="MessageTransportServerStatistics.UdpKernelDrops"/>. Null keeps the system
    /// default. Defaults to <see cref="DatagramSocketOptions.DefaultSocketBufferSize"/> (4 MiB).
    /// </summary>
    public int? UdpReceiveBufferSize { get; set; } = DatagramSocketOptions.DefaultSocketBufferSize;

    /// <summary>
    /// SO_SNDBUF of the UDP socket, in bytes; null keeps the system default. Defaults to
    /// <see cref="DatagramSocketOptions.DefaultSocketBufferSize"/> (4 MiB).
    /// </summary>
    public int? UdpSendBufferSize { get; set; } = DatagramSocketOptions.DefaultSocketBufferSize;

    /// <summary>
    /// Settings of the TCP side (framing, queues, timeouts); its EndPoint is replaced by <see cref="EndPoint"/> and its
    /// Logger also serves the UDP side. Defaults to <see cref="StreamServerOptions"/>' defaults.
    /// </summary>
    public StreamServerOptions Tcp { get; set; } = new();

    /// <summary>Throws an <see cref="ArgumentException"/> naming the first invalid option.</summary>
    public void Validate()
    {
        StreamServerOptions.CheckEndPoint(EndPoint);

        if (UdpBatchSize is < 1 or > 1024)
        {
            throw new ArgumentOutOfRangeException(nameof(UdpBatchSize), UdpBatchSize, "UdpBatchSize must be 1 to 1,024.");
        }

        DatagramSocketOptions.CheckBufferSize(UdpReceiveBufferSize, nameof(UdpReceiveBufferSize));
        DatagramSocketOptions.CheckBufferSize(UdpSendBufferSize, nameof(UdpSendBufferSize));

        if (Tcp is null)
        {
            throw new ArgumentException("Tcp is required.", nameof(Tcp));
        }

        Tcp.Validate();
    }
}
