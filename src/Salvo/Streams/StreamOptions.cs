using System.Diagnostics.Metrics;
using Microsoft.Extensions.Logging;
using Salvo.Buffers;

namespace Salvo.Streams;

/// <summary>Settings every framed connection of a <see cref="StreamServer"/> or <see cref="StreamClient"/> shares.</summary>
public class StreamOptions
{
    /// <summary>Cuts the byte stream into messages. Defaults to <see cref="MessageFramer.LengthPrefix"/> (4-byte big-endian length, 64 KiB limit).</summary>
    public IMessageFramer Framer { get; set; } = MessageFramer.LengthPrefix;

    /// <summary>
    /// The pool both pipes of every connection rent their blocks from. A connection rents only while bytes are in
    /// flight: an idle connection holds no block. Defaults to null: a pool of 4 KiB blocks owned by the server or client.
    /// </summary>
    public PinnedBufferPool? BufferPool { get; set; }

    /// <summary>
    /// The send queue limit per connection, in bytes. Once at least this many encoded bytes wait for the socket,
    /// the next send waits until the queue drains to half; a queue never holds more than this plus one frame.
    /// Defaults to 256 KiB.
    /// </summary>
    public int MaxSendQueueBytes { get; set; } = 256 * 1024;

    /// <summary>
    /// How long a send may wait for a full queue to drain. When it passes, the peer is taken as not reading: the
    /// connection is closed with <see cref="StreamCloseReason.SendTimeout"/> and the waiting send returns false.
    /// <see cref="Timeout.InfiniteTimeSpan"/> waits for ever. Defaults to 30 seconds.
    /// </summary>
    public TimeSpan SendTimeout { get; set; } = TimeSpan.FromSeconds(30);

    /// <summary>
    /// How long a connection may go without receiving or sending a byte before it is closed with
    /// <see cref="StreamCloseReason.IdleTimeout"/>. <see cref="Timeout.InfiniteTimeSpan"/> never closes an idle
    /// connection. Checked by one timer per server or client, not one per connection. Defaults to 2 minutes.
    /// </summary>
    public TimeSpan IdleTimeout { get; set; } = TimeSpan.FromMinutes(2);

    /// <summary>
    /// How long a graceful close waits for queued bytes to go out and then for the peer's end of stream before
    /// the socket is dropped. Defaults to 5 seconds.
    /// </summary>
    public TimeSpan CloseTimeout { get; set; } = TimeSpan.FromSeconds(5);

    /// <summary>TCP_NODELAY: send small frames at once instead of waiting to coalesce them (Nagle). Defaults to true.</summary>
    public bool NoDelay { get; set; } = true;

    /// <summary>
    /// SO_SNDBUF of each connection in bytes; null keeps the kernel's autotuning (Linux: up to net.ipv4.tcp_wmem's
    /// maximum). Smaller holds less kernel memory per connection and lets backpressure reach the sender sooner.
    /// Defaults to null.
    /// </summary>
    public int? SocketSendBufferSize { get; set; }

    /// <summary>
    /// SO_RCVBUF of each connection in bytes; null keeps the kernel's autotuning (Linux: up to net.ipv4.tcp_rmem's
    /// maximum), which TCP's flow control makes safe: unlike a datagram socket, a full TCP buffer loses nothing.
    /// Defaults to null.
    /// </summary>
    public int? SocketReceiveBufferSize { get; set; }

    /// <summary>
    /// Called with each socket before it binds or connects: a server's listener before bind, each socket a client
    /// opens before bind and connect, so that options the kernel reads when it picks a route or a port apply (for
    /// example SO_MARK for policy routing, SO_BINDTODEVICE). Accepted sockets are not passed: they are connected
    /// already, and Linux copies the listener's options (its mark included) to each. An exception it throws fails
    /// that start or connect and closes the socket. Defaults to null (nothing beyond the options above).
    /// </summary>
    public Action<System.Net.Sockets.Socket>? ConfigureSocket { get; set; }

    /// <summary>Where connections log opens, closes and their reasons. Defaults to null (no logging).</summary>
    public ILogger? Logger { get; set; }

    /// <summary>Creates the "Salvo" meter; null uses one process-wide meter. Defaults to null.</summary>
    public IMeterFactory? MeterFactory { get; set; }

    /// <summary>Throws an <see cref="ArgumentException"/> naming the first invalid option.</summary>
    public virtual void Validate()
    {
        if (Framer is null)
        {
            throw new ArgumentException("Framer is required.", nameof(Framer));
        }

        if (MaxSendQueueBytes <= 0)
        {
            throw new ArgumentOutOfRangeException(nameof(MaxSendQueueBytes), MaxSendQueueBytes, "MaxSendQueueBytes must be positive.");
        }

        if (SocketSendBufferSize is <= 0)
        {
            throw new ArgumentOutOfRangeException(nameof(SocketSendBufferSize), SocketSendBufferSize, "SocketSendBufferSize must be positive.");
        }

        if (SocketReceiveBufferSize is <= 0)
        {
            throw new ArgumentOutOfRangeException(nameof(SocketReceiveBufferSize), SocketReceiveBufferSize, "SocketReceiveBufferSize must be positive.");
        }

        CheckTimeout(SendTimeout, nameof(SendTimeout));
        CheckTimeout(IdleTimeout, nameof(IdleTimeout));
        CheckTimeout(CloseTimeout, nameof(CloseTimeout));
    }

    private static void CheckTimeout(TimeSpan value, string name)
    {
        if (value != Timeout.InfiniteTimeSpan && value <= TimeSpan.Zero)
        {
            throw new ArgumentOutOfRangeException(name, value, $"{name} must be positive or Timeout.InfiniteTimeSpan.");
        }
    }
}
