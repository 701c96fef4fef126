using System.Net;

namespace Salvo.Benchmarks;

/// <summary>
/// The served side of <see cref="ManySocketsDriver"/>: COUNT sockets connected to the driver's one address, each
/// echoing what it receives, all on async receives whose continuations run on a thread pool held to two threads.
/// Reads "mark" lines on stdin and answers "mark CPU_US SERVED" (the process's user plus system CPU time and the
/// datagrams echoed so far); any other line or the end of stdin stops it.
/// </summary>
internal static class ManySocketsServer
{
    // The use io_uring was built for is many sockets on few threads; two is what the comparison names.
    private const int Threads = 2;

    private static long served;

    public static int Run(string[] args)
    {
        var backend = Enum.Parse<DatagramBackend>(args[0], ignoreCase: true);
        var count = int.Parse(args[1], System.Globalization.CultureInfo.InvariantCulture);
        var peer = new IPEndPoint(IPAddress.Loopback, int.Parse(args[2], System.Globalization.CultureInfo.InvariantCulture));
        ThreadPool.SetMinThreads(Threads, Threads);
        ThreadPool.SetMaxThreads(Threads, Threads);

        var sockets = new DatagramSocket[count];
        for (var i = 0; i < count; i++)
        {
            sockets[i] = DatagramSocket.Bind(new IPEndPoint(IPAddress.Loopback, 0), backend);
            sockets[i].Connect(peer);
        }

        Console.Out.WriteLine("backend " + sockets[0].Backend);
        Console.Out.WriteLine("ports " + string.Join(' ', sockets.Select(socket => socket.LocalEndPoint.Port)));
        Console.Out.Flush();

        // 10,000 sockets with a 64-slot batch of 2 KiB each would pin 1.3 GB; light traffic rarely queues more than one.
        var capacity = count > 1_000 ? 4 : 32;
        var loops = sockets.Select(socket => Task.Run(() => Echo(socket, capacity))).ToArray();
        while (Console.In.ReadLine() is "mark")
        {
            Console.Out.WriteLine(FormattableString.Invariant(
                $"mark {(long)ThreadPlacement.ProcessCpuTime().TotalMicroseconds} {Volatile.Read(ref served)}"));
            Console.Out.Flush();
        }

        foreach (var socket in sockets)
        {
            socket.Dispose();
        }

        Task.WaitAll(loops, TimeSpan.FromSeconds(10));
        return 0;
    }

    private static async Task Echo(DatagramSocket socket, int capacity)
    {
        var receive = new ReceiveBatch(capacity, bufferSize: 2048);
        var send = new SendBatch(capacity, maxDatagramSize: 2048);
        while (true)
        {
            int received;
            try
            {
                received = await socket.ReceiveAsync(receive).ConfigureAwait(false);
                foreach (var datagram in receive)
                {
                    send.Add(datagram.Payload);
                }

                await socket.SendAsync(send).ConfigureAwait(false);
            }
            catch (ObjectDisposedException)
            {
                return;
            }
            catch (System.Net.Sockets.SocketException)
            {
                // A reply refused by ICMP (the driver already gone) ends nothing; the driver counts what it misses.
                continue;
            }
            finally
            {
                send.Clear();
            }

            Interlocked.Add(ref served, received);
        }
    }
}
