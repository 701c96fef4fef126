using System.Buffers;
using System.Buffers.Binary;
using System.Collections.Concurrent;
using System.Threading.Channels;
using Salvo.Streams;

namespace Salvo.Tests.Streams;

/// <summary>
/// A <see cref="MessageTransport"/> that fell back to TCP probes UDP on a back-off schedule and moves back when a probe
/// is answered, and moves from UDP to TCP when keepalives go unanswered. The server's
/// <see cref="MessageTransportServerOptions.AnswerHandshake"/>, read at every HELLO, stands for a network that drops UDP
/// and then lets it through; probes, keepalives and grace periods run on a manual clock.
/// </summary>
public sealed class MessageTransportReprobeTests
{
    private static readonly TimeSpan Grace = TimeSpan.FromSeconds(3);
    private static readonly TimeSpan Keepalive = TimeSpan.FromSeconds(1);

    private readonly ManualTimeProvider _clock = new();
    private readonly MessageTransportServerOptions _serverOptions = new() { AnswerHandshake = false };
    private readonly ConcurrentDictionary<int, int> _serverCounts = new();
    private readonly ConcurrentDictionary<TransportKind, int> _serverPaths = new();
    private readonly ConcurrentDictionary<int, int> _echoCounts = new();
    private readonly Channel<int> _echoes = Channel.CreateUnbounded<int>();

    [Theory]
    [InlineData("UdpReprobeBackoff.FirstDelay")]
    [InlineData("UdpReprobeBackoff.MaxDelay")]
    [InlineData("UdpReprobeBackoff.Jitter")]
    [InlineData(nameof(MessageTransportOptions.SwitchGracePeriod))]
    [InlineData(nameof(MessageTransportOptions.UdpKeepaliveInterval))]
    [InlineData(nameof(MessageTransportOptions.UdpKeepaliveMisses))]
    public void MessageTransport_BadReprobeOption_ThrowsNamingIt(string option)
    {
        var options = option switch
        {
            "UdpReprobeBackoff.FirstDelay" => new MessageTransportOptions { UdpReprobeBackoff = new(TimeSpan.Zero, TimeSpan.FromSeconds(60), 0.2) },
            "UdpReprobeBackoff.MaxDelay" => new MessageTransportOptions { UdpReprobeBackoff = new(TimeSpan.FromSeconds(5), TimeSpan.FromSeconds(1), 0.2) },
            "UdpReprobeBackoff.Jitter" => new MessageTransportOptions { UdpReprobeBackoff = new(TimeSpan.FromSeconds(5), TimeSpan.FromSeconds(60), 1.5) },
            nameof(MessageTransportOptions.SwitchGracePeriod) => new MessageTransportOptions { SwitchGracePeriod = TimeSpan.FromSeconds(-1) },
            nameof(MessageTransportOptions.UdpKeepaliveInterval) => new MessageTransportOptions { UdpKeepaliveInterval = TimeSpan.Zero },
            _ => new MessageTransportOptions { UdpKeepaliveMisses = -1 },
        };

        var e = Assert.ThrowsAny<ArgumentException>(() => new MessageTransport(options, (_, _) => default));

        Assert.Equal(option, e.ParamName);
    }

    [Fact]
    public async Task UdpFirst_OnTcp_ProbesOnTheBackOffUntilAnswered_ThenUsesUdpAndClosesTcpAfterTheGrace()
    {
        await using var server = StartServer();
        await using var transport = Client(reprobe: true);
        var selected = Channel.CreateUnbounded<TransportSelectedEventArgs>();
        transport.TransportSelected += (_, e) => selected.Writer.TryWrite(e);
        await transport.ConnectAsync(server.LocalEndPoint!);
        Assert.Equal(TransportKind.Tcp, (await selected.Reader.ReadAsync()).Transport);

        Assert.Equal([TimeSpan.FromSeconds(5)], await _clock.WaitForArmedTimersAsync(1));
        _clock.Advance(TimeSpan.FromSeconds(5));
        Assert.Equal([TimeSpan.FromSeconds(10)], await _clock.WaitForArmedTimersAsync(1));
        Assert.Equal(TransportKind.Tcp, transport.Transport);

        _serverOptions.AnswerHandshake = true;
        _clock.Advance(TimeSpan.FromSeconds(10));
        var switched = await selected.Reader.ReadAsync().AsTask().WaitAsync(RecordingHandler.Patience);

        Assert.Equal(TransportKind.Udp, switched.Transport);
        Assert.StartsWith("UDP probe 2 was answered", switched.Reason, StringComparison.Ordinal);
        Assert.Equal(TransportKind.Udp, transport.Transport);
        Assert.Equal(1, transport.TransportSwitches);
        Assert.Equal([Grace], await _clock.WaitForArmedTimersAsync(1));
        Assert.Equal(1, server.Tcp!.ConnectionCount);

        _clock.Advance(Grace);
        await StreamTestKit.WaitUntilAsync(() => server.Tcp!.ConnectionCount == 0, "the TCP connection to close after the grace period");
        await SendAndAwaitEchoAsync(transport, 7);
        Assert.Equal(1, _serverPaths[TransportKind.Udp]);
    }

    [Fact]
    public async Task UdpFirst_ReprobeOff_StaysOnTcpWithNoProbeScheduled()
    {
        await using var server = StartServer();
        _serverOptions.AnswerHandshake = true;
        await using var transport = Client(reprobe: false);
        _serverOptions.AnswerHandshake = false;
        await transport.ConnectAsync(server.LocalEndPoint!);
        _serverOptions.AnswerHandshake = true;

        Assert.Equal(TransportKind.Tcp, transport.Transport);
        Assert.Empty(_clock.ArmedTimers());
        await SendAndAwaitEchoAsync(transport, 1);
        Assert.Equal(TransportKind.Tcp, transport.Transport);
        Assert.Equal(0, transport.TransportSwitches);
    }

    [Fact]
    public async Task UdpFirst_OnUdp_KeepalivesUnanswered_MovesToTcpAfterTheMisses()
    {
        _serverOptions.AnswerHandshake = true;
        await using var server = StartServer();
        await using var transport = Client(reprobe: true);
        TransportSelectedEventArgs? selected = null;
        transport.TransportSelected += (_, e) => selected = e;
        await transport.ConnectAsync(server.LocalEndPoint!);
        Assert.Equal(TransportKind.Udp, transport.Transport);
        Assert.Equal([Keepalive], await _clock.WaitForArmedTimersAsync(1));

        // The first keepalive went out while the server still answered: it may count as answered or not, so two
        // intervals give at most two misses.
        _serverOptions.AnswerHandshake = false;
        for (var tick = 0; tick < 2; tick++)
        {
            _clock.Advance(Keepalive);
            Assert.Equal([Keepalive], await _clock.WaitForArmedTimersAsync(1));
            Assert.Equal(TransportKind.Udp, transport.Transport);
        }

        await TickKeepalivesUntilTcpAsync(transport, maxTicks: 2);

        Assert.StartsWith("3 UDP keepalives in a row went unanswered (1000 ms apart)", selected?.Reason, StringComparison.Ordinal);
        Assert.Equal(1, transport.TransportSwitches);
        await SendAndAwaitEchoAsync(transport, 3);
        Assert.Equal(1, _serverPaths[TransportKind.Tcp]);

        // The old UDP socket closes after the grace period and the probe schedule starts; disposing then is clean too.
        _clock.Advance(Grace);
        Assert.Equal([TimeSpan.FromSeconds(5)], await _clock.WaitForArmedTimersAsync(1));
    }

    [Fact]
    public async Task SwitchHandlerThrows_TheSwitchStandsAndLaterSwitchesStillRun()
    {
        _serverOptions.AnswerHandshake = true;
        await using var server = StartServer();
        await using var transport = Client(reprobe: true);
        await transport.ConnectAsync(server.LocalEndPoint!);
        transport.TransportSelected += (_, _) => throw new InvalidOperationException("a faulty handler");
        Assert.Equal([Keepalive], await _clock.WaitForArmedTimersAsync(1));

        _serverOptions.AnswerHandshake = false;
        for (var tick = 0; tick < 2; tick++)
        {
            _clock.Advance(Keepalive);
            Assert.Equal([Keepalive], await _clock.WaitForArmedTimersAsync(1));
        }

        await TickKeepalivesUntilTcpAsync(transport, maxTicks: 2);

        Assert.Equal(TransportKind.Tcp, transport.Transport);
        await SendAndAwaitEchoAsync(transport, 7);

        // The switch machinery goes on: after the grace period the probe back to UDP is scheduled.
        _clock.Advance(Grace);
        Assert.Equal([TimeSpan.FromSeconds(5)], await _clock.WaitForArmedTimersAsync(1));
    }

    [Fact]
    public async Task UdpFirst_KeepalivesOff_StaysOnUdpWithNoKeepaliveScheduled()
    {
        _serverOptions.AnswerHandshake = true;
        await using var server = StartServer();
        await using var transport = Client(reprobe: true, keepaliveMisses: 0);
        await transport.ConnectAsync(server.LocalEndPoint!);

        Assert.Equal(TransportKind.Udp, transport.Transport);
        Assert.Empty(_clock.ArmedTimers());
    }

    [Fact]
    public async Task NumberedMessages_AcrossBothSwitches_EachArrivesExactlyOnce()
    {
        _serverOptions.AnswerHandshake = true;
        await using var server = StartServer();
        await using var transport = Client(reprobe: true);
        await transport.ConnectAsync(server.LocalEndPoint!);
        Assert.Equal(TransportKind.Udp, transport.Transport);
        await _clock.WaitForArmedTimersAsync(1);
        var next = 0;
        for (var i = 0; i < 50; i++)
        {
            await SendAndAwaitEchoAsync(transport, next++);
        }

        _serverOptions.AnswerHandshake = false;
        await TickKeepalivesUntilTcpAsync(transport, maxTicks: 4);
        _clock.Advance(Grace);
        Assert.Equal([TimeSpan.FromSeconds(5)], await _clock.WaitForArmedTimersAsync(1));

        // Some messages are sent over TCP before the probe can be answered (the probe may be answered before the loop
        // below sends anything), and more keep going out while it runs, so that some are still queued on TCP when new
        // ones take UDP.
        var firstOverTcp = next;
        for (var i = 0; i < 20; i++)
        {
            Assert.True(await transport.SendAsync(Number(next++)));
        }

        _serverOptions.AnswerHandshake = true;
        _clock.Advance(TimeSpan.FromSeconds(5));
        while (transport.Transport == TransportKind.Tcp)
        {
            Assert.True(next < 200_000, "the transport did not move back to UDP");
            Assert.True(await transport.SendAsync(Number(next++)));
            if (next % 256 == 0)
            {
                await Task.Yield();
            }
        }

        var sentOverTcp = next - firstOverTcp;
        for (var i = 0; i < 100; i++)
        {
            await SendAndAwaitEchoAsync(transport, next++);
        }

        await StreamTestKit.WaitUntilAsync(() => _echoCounts.Count == next, "every echo, including those on TCP");
        await _clock.WaitForArmedTimersAsync(1);
        _clock.Advance(Grace);
        await StreamTestKit.WaitUntilAsync(() => server.Tcp!.ConnectionCount == 0, "the TCP connection to close after the grace period");

        Assert.Equal(2, transport.TransportSwitches);
        // The loop's last message may have been sent after the switch back landed between its check and its send, so it
        // took UDP: every message went one way, and all but that last one of the loop's went over TCP.
        Assert.Equal(next, _serverPaths[TransportKind.Tcp] + _serverPaths[TransportKind.Udp]);
        Assert.InRange(_serverPaths[TransportKind.Tcp], sentOverTcp - 1, sentOverTcp);
        Assert.Equal(Enumerable.Range(0, next), _serverCounts.Keys.Order());
        Assert.All(_serverCounts.Values, count => Assert.Equal(1, count));
        Assert.Equal(Enumerable.Range(0, next), _echoCounts.Keys.Order());
        Assert.All(_echoCounts.Values, count => Assert.Equal(1, count));
    }

    private static byte[] Number(int n)
    {
        var message = new byte[sizeof(int)];
        BinaryPrimitives.WriteInt32BigEndian(message, n);
        return message;
    }

    private static int ReadNumber(ReadOnlySequence<byte> message) => BinaryPrimitives.ReadInt32BigEndian(message.ToArray());

    /// <summary>Moves the clock one keepalive interval at a time until the transport is on TCP.</summary>
    private async Task TickKeepalivesUntilTcpAsync(MessageTransport transport, int maxTicks)
    {
        for (var tick = 0; tick < maxTicks && transport.Transport == TransportKind.Udp; tick++)
        {
            _clock.Advance(Keepalive);

            // Armed next: another keepalive while on UDP, or the grace period of the old path once on TCP.
            await _clock.WaitForArmedTimersAsync(1);
        }

        Assert.Equal(TransportKind.Tcp, transport.Transport);
    }

    private async Task SendAndAwaitEchoAsync(MessageTransport transport, int n)
    {
        Assert.True(await transport.SendAsync(Number(n)));
        while (await _echoes.Reader.ReadAsync().AsTask().WaitAsync(RecordingHandler.Patience) != n)
        {
            // An echo of a message sent earlier over TCP.
        }
    }

    private MessageTransportServer StartServer()
    {
        var server = new MessageTransportServer(_serverOptions, async (peer, message) =>
        {
            _serverCounts.AddOrUpdate(ReadNumber(message), 1, (_, count) => count + 1);
            _serverPaths.AddOrUpdate(peer.Transport, 1, (_, count) => count + 1);
            Assert.True(await peer.SendAsync(message.ToArray()));
        });
        server.Start();
        return server;
    }

    private MessageTransport Client(bool reprobe, int keepaliveMisses = 3) => new(
        new MessageTransportOptions
        {
            HandshakeTimeout = TimeSpan.FromMilliseconds(200),
            UdpReprobe = reprobe,
            UdpKeepaliveInterval = Keepalive,
            UdpKeepaliveMisses = keepaliveMisses,
            UdpReprobeBackoff = new MessageTransportOptions().UdpReprobeBackoff with { Jitter = 0 },
            SwitchGracePeriod = Grace,
            TimeProvider = _clock,
        },
        (_, message) =>
        {
            var n = ReadNumber(message);
            _echoCounts.AddOrUpdate(n, 1, (_, count) => count + 1);
            _echoes.Writer.TryWrite(n);
            return ValueTask.CompletedTask;
        });
}
