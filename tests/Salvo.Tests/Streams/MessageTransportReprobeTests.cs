using System.Buffers;
using System.Buffers.Binary;
using System.Collections.Concurrent;
using System.Threading.Channels;
using Salvo.Streams;

namespace Salvo.Tests.Streams;

/// <summary>
/// A <see cref="MessageTransport"/> that fell back to TCP probes UDP on a back-off schedule and moves back when a probe
/// is answered. The server's <see cref="MessageTransportServerOptions.AnswerHandshake"/>, read at every HELLO, stands
/// for a network that drops UDP and then lets it through; the probe schedule runs on a manual clock.
/// </summary>
public sealed class MessageTransportReprobeTests
{
    private static readonly TimeSpan Grace = TimeSpan.FromSeconds(3);

    private readonly ManualTimeProvider _clock = new();
    private readonly MessageTransportServerOptions _serverOptions = new() { AnswerHandshake = false };
    private readonly ConcurrentDictionary<int, int> _serverCounts = new();
    private readonly ConcurrentDictionary<TransportKind, int> _serverPaths = new();
    private readonly ConcurrentDictionary<int, int> _echoCounts = new();
    private readonly Channel<int> _echoes = Channel.CreateUnbounded<int>();

    [Fact]
    public void UdpProbeSchedule_NoJitter_DoublesFromTheFirstDelayUpToTheCap()
    {
        var schedule = new UdpProbeSchedule(TimeSpan.FromSeconds(5), TimeSpan.FromSeconds(60), jitter: 0, new Random(1));

        var delays = Enumerable.Range(0, 7).Select(_ => schedule.Next().TotalSeconds).ToArray();

        Assert.Equal([5, 10, 20, 40, 60, 60, 60], delays);
    }

    [Fact]
    public void UdpProbeSchedule_WithJitter_SpreadsEachDelayWithinItsShare()
    {
        var random = new Random(1);
        var firsts = Enumerable.Range(0, 1000)
            .Select(_ => new UdpProbeSchedule(TimeSpan.FromSeconds(5), TimeSpan.FromSeconds(60), jitter: 0.2, random).Next().TotalSeconds)
            .ToArray();

        Assert.All(firsts, delay => Assert.InRange(delay, 4, 6));
        Assert.True(firsts.Min() < 4.5 && firsts.Max() > 5.5, $"delays {firsts.Min()} to {firsts.Max()} s are not spread");
    }

    [Theory]
    [InlineData(nameof(MessageTransportOptions.UdpReprobeFirstDelay))]
    [InlineData(nameof(MessageTransportOptions.UdpReprobeMaxDelay))]
    [InlineData(nameof(MessageTransportOptions.UdpReprobeJitter))]
    [InlineData(nameof(MessageTransportOptions.TcpGracePeriod))]
    public void MessageTransport_BadReprobeOption_ThrowsNamingIt(string option)
    {
        var options = option switch
        {
            nameof(MessageTransportOptions.UdpReprobeFirstDelay) => new MessageTransportOptions { UdpReprobeFirstDelay = TimeSpan.Zero },
            nameof(MessageTransportOptions.UdpReprobeMaxDelay) => new MessageTransportOptions { UdpReprobeMaxDelay = TimeSpan.FromSeconds(1) },
            nameof(MessageTransportOptions.UdpReprobeJitter) => new MessageTransportOptions { UdpReprobeJitter = 1.5 },
            _ => new MessageTransportOptions { TcpGracePeriod = TimeSpan.FromSeconds(-1) },
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
        await WaitUntilAsync(() => server.Tcp!.ConnectionCount == 0, "the TCP connection to close after the grace period");
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
    public async Task NumberedMessages_AcrossTheMoveBackToUdp_EachArrivesExactlyOnce()
    {
        await using var server = StartServer();
        await using var transport = Client(reprobe: true);
        await transport.ConnectAsync(server.LocalEndPoint!);
        Assert.Equal(TransportKind.Tcp, transport.Transport);
        await _clock.WaitForArmedTimersAsync(1);

        // Messages keep going out while the probe runs, so that some are still queued on TCP when new ones take UDP.
        _serverOptions.AnswerHandshake = true;
        _clock.Advance(TimeSpan.FromSeconds(5));
        var next = 0;
        while (transport.Transport == TransportKind.Tcp)
        {
            Assert.True(next < 200_000, "the transport did not move to UDP");
            Assert.True(await transport.SendAsync(Number(next++)));
            if (next % 256 == 0)
            {
                await Task.Yield();
            }
        }

        var sentOverTcp = next;

        // One datagram in flight at a time, so that none is lost to a full socket buffer.
        for (var i = 0; i < 100; i++)
        {
            await SendAndAwaitEchoAsync(transport, next++);
        }

        await WaitUntilAsync(() => _echoCounts.Count == next, "every echo, including those on TCP");
        await _clock.WaitForArmedTimersAsync(1);
        _clock.Advance(Grace);
        await WaitUntilAsync(() => server.Tcp!.ConnectionCount == 0, "the TCP connection to close after the grace period");

        Assert.True(sentOverTcp > 0);
        Assert.Equal(sentOverTcp, _serverPaths[TransportKind.Tcp]);
        Assert.Equal(100, _serverPaths[TransportKind.Udp]);
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

    private static async Task WaitUntilAsync(Func<bool> condition, string what)
    {
        var deadline = DateTime.UtcNow + RecordingHandler.Patience;
        while (!condition())
        {
            Assert.True(DateTime.UtcNow < deadline, $"Waited too long for {what}.");
            await Task.Delay(5);
        }
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

    private MessageTransport Client(bool reprobe) => new(
        new MessageTransportOptions
        {
            HandshakeTimeout = TimeSpan.FromMilliseconds(200),
            UdpReprobe = reprobe,
            UdpReprobeJitter = 0,
            TcpGracePeriod = Grace,
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
