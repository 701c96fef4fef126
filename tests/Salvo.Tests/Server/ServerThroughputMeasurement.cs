using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using Salvo.Server;
using Xunit.Abstractions;

namespace Salvo.Tests.Server;

/// <summary>
/// Echo throughput of the server's modes side by side in one run, against a plain System.Net.Sockets echo
/// loop: windowed batched clients on loopback, median of interleaved repetitions. Prints, asserts nothing.
/// </summary>
[Collection(NonParallelCollection.Name)]
public sealed class ServerThroughputMeasurement(ITestOutputHelper output)
{
    private const int Clients = 2;
    private const int Window = 64;
    private const int Length = 100;
    private const int Repetitions = 3;
    private static readonly TimeSpan s_duration = TimeSpan.FromSeconds(2);

    [RequiresFact(Requirement.Measure)]
    public async Task EchoThroughput_ByMode()
    {
        (string Name, Func<Task<double>> Run)[] modes =
        [
            ("plain Socket, 1 async loop", RunPlainBaseline),
            ("DedicatedThread, Inline", () => RunServer(ServerIoModel.DedicatedThread, ServerProcessing.Inline)),
            ("Async, Inline", () => RunServer(ServerIoModel.Async, ServerProcessing.Inline)),
            ("DedicatedThread, Queued", () => RunServer(ServerIoModel.DedicatedThread, ServerProcessing.Queued)),
            ("Async, Queued", () => RunServer(ServerIoModel.Async, ServerProcessing.Queued)),
        ];

        var results = modes.Select(_ => new List<double>()).ToArray();
        for (var repetition = 0; repetition < Repetitions; repetition++)
        {
            for (var i = 0; i < modes.Length; i++)
            {
                results[i].Add(await modes[i].Run());
            }
        }

        var baseline = Median(results[0]);
        output.WriteLine($"{"mode",-30} {"median echoes/s",16} {"min",10} {"max",10} {"vs plain",9}");
        for (var i = 0; i < modes.Length; i++)
        {
            var median = Median(results[i]);
            output.WriteLine($"{modes[i].Name,-30} {median,16:N0} {results[i].Min(),10:N0} {results[i].Max(),10:N0} {median / baseline,8:F2}x");
        }
    }

    private static double Median(List<double> values) => values.Order().ElementAt(values.Count / 2);

    private static async Task<double> RunServer(ServerIoModel ioModel, ServerProcessing processing)
    {
        var options = new DatagramServerOptions
        {
            EndPoint = new IPEndPoint(IPAddress.Loopback, 0),
            Workers = 2,
            IoModel = ioModel,
            Processing = processing,
            MaxDatagramSize = 2048,
            ReceiveBufferSize = 4 << 20,
        };
        await using var server = new DatagramServer(options, new EchoHandler());
        await server.StartAsync();
        return await Drive(server.LocalEndPoint);
    }

    private static async Task<double> RunPlainBaseline()
    {
        // What a plain .NET echo server does: one receive at a time, one send per datagram, with the
        // allocation-free SocketAddress overloads.
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
        socket.ReceiveBufferSize = 4 << 20;
        socket.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        using var stop = new CancellationTokenSource();
        var loop = Task.Run(async () =>
        {
            var buffer = GC.AllocateUninitializedArray<byte>(2048, pinned: true);
            var address = new SocketAddress(AddressFamily.InterNetwork);
            try
            {
                while (true)
                {
                    var received = await socket.ReceiveFromAsync(buffer, SocketFlags.None, address, stop.Token);
                    await socket.SendToAsync(buffer.AsMemory(0, received), SocketFlags.None, address, stop.Token);
                }
            }
            catch (OperationCanceledException)
            {
            }
        });
        var rate = await Drive((IPEndPoint)socket.LocalEndPoint!);
        await stop.CancelAsync();
        await loop;
        return rate;
    }

    /// <summary>Clients each keep a window of datagrams in flight for the duration; returns echoes per second.</summary>
    private static async Task<double> Drive(IPEndPoint server)
    {
        var clock = Stopwatch.StartNew();
        var counts = await Task.WhenAll(Enumerable.Range(0, Clients).Select(_ => Task.Factory.StartNew(
            () => DriveOne(server), TaskCreationOptions.LongRunning)));
        return counts.Sum() / clock.Elapsed.TotalSeconds;
    }

    private static long DriveOne(IPEndPoint server)
    {
        using var client = DatagramSocket.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        var destination = DatagramAddress.FromIPEndPoint(server);
        var send = new SendBatch(Window, Length);
        var receive = new ReceiveBatch(Window, 2048);
        Span<byte> payload = stackalloc byte[Length];
        long echoed = 0;
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed < s_duration)
        {
            send.Clear();
            for (var i = 0; i < Window; i++)
            {
                send.Add(payload, destination);
            }

            client.Send(send);
            var pending = Window;
            while (pending > 0)
            {
                // A lost datagram ends the round after 200 ms instead of stalling it.
                var received = client.Receive(receive, TimeSpan.FromMilliseconds(200));
                if (received == 0)
                {
                    break;
                }

                pending -= received;
                echoed += received;
            }
        }

        return echoed;
    }
}
