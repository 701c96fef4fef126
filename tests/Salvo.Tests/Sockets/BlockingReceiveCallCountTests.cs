using System.Diagnostics;
using System.Net;
using System.Runtime.Versioning;
using System.Text.RegularExpressions;

namespace Salvo.Tests.Sockets;

/// <summary>
/// The blocking receive's system calls, counted by strace attached to the receiving thread: a receive that finds the
/// socket empty sleeps inside its one call (recvmmsg, or recvmsg once its waits wake to one datagram each), with no
/// non-blocking call that finds nothing before it. Each request
/// arrives while the receiver sleeps (the client waits 2 ms between requests), which is where a try first would cost
/// one more call per request.
/// </summary>
[Collection(NonParallelCollection.Name)]
[SupportedOSPlatform("linux")]
public sealed class BlockingReceiveCallCountTests
{
    private const int WarmUp = 50;
    private const int Traced = 300;

    [RequiresFact(Requirement.Linux | Requirement.Root, Tools = ["strace"])]
    public void EachRequestThatFindsTheReceiverAsleep_CostsItOneReceiveCall()
    {
        using var server = Open();
        using var client = Open();
        client.Connect(server.LocalAddress);
        using var warmedUp = new ManualResetEventSlim();
        using var traced = new ManualResetEventSlim();
        var threadId = new TaskCompletionSource<string>();
        Exception? failure = null;

        var serverThread = new Thread(() =>
        {
            try
            {
                threadId.SetResult(new DirectoryInfo("/proc/thread-self").LinkTarget!.Split('/')[^1]);
                EchoServing.Serve(server, WarmUp + Traced, mark: WarmUp, () =>
                {
                    warmedUp.Set();
                    traced.Wait(TimeSpan.FromSeconds(30));
                });
            }
            catch (Exception e)
            {
                failure = e;
                warmedUp.Set();
            }
        });
        serverThread.Start();
        var tid = threadId.Task.WaitAsync(TimeSpan.FromSeconds(10)).GetAwaiter().GetResult();

        Ask(client, WarmUp);
        Assert.True(warmedUp.Wait(TimeSpan.FromSeconds(10)), "the server did not serve the warm-up");
        Assert.Null(failure);

        var summary = Path.GetTempFileName();
        try
        {
            // The trace ends when the traced thread does: the server's thread returns after its last reply.
            using var strace = Process.Start(new ProcessStartInfo("strace", $"-c -e trace=recvmmsg,recvmsg -o {summary} -p {tid}")
            {
                RedirectStandardError = true,
                UseShellExecute = false,
            }) ?? throw new InvalidOperationException("strace did not start");
            WaitUntilAttached(strace);
            traced.Set();
            Ask(client, Traced);
            Assert.True(serverThread.Join(TimeSpan.FromSeconds(30)), "the server did not finish");
            Assert.True(strace.WaitForExit(TimeSpan.FromSeconds(30)), "strace did not end with the thread");
            Assert.Null(failure);

            var text = File.ReadAllText(summary);
            var (batchCalls, batchErrors) = ReceiveCalls(text, "recvmmsg");
            var (singleCalls, singleErrors) = ReceiveCalls(text, "recvmsg");
            var (calls, errors) = (batchCalls + singleCalls, batchErrors + singleErrors);

            // Each request wakes the sleeping receiver to one datagram, so after the first the waits are recvmsg.
            Assert.True(singleCalls >= Traced / 2, $"{singleCalls} recvmsg and {batchCalls} recvmmsg calls for {Traced} requests that each found the receiver asleep");

            // One call per request. The spare tenth is for calls a signal ends early (EINTR: the runtime signals every
            // thread to suspend it for a collection); a try before each wait would add a whole second call per request.
            Assert.True(calls <= Traced + Traced / 10, $"{calls} receive calls ({errors} failed) for {Traced} requests");
            Assert.True(calls >= Traced / 2, $"strace counted only {calls} receive calls for {Traced} requests");
            Assert.True(errors <= Traced / 10, $"{errors} of {calls} receive calls failed");
        }
        finally
        {
            traced.Set();
            File.Delete(summary);
        }
    }

    private static void Ask(DatagramSocket client, int count)
    {
        var request = new SendBatch(capacity: 1, maxDatagramSize: 64);
        var responses = new ReceiveBatch(capacity: 8, bufferSize: 2048);
        for (var i = 0; i < count; i++)
        {
            request.Clear();
            request.TryAdd(64, DatagramAddress.None, out _);
            client.Send(request);
            Assert.Equal(1, client.Receive(responses, TimeSpan.FromSeconds(10)));

            // Long enough that the server is asleep in its receive when the next request arrives.
            Thread.Sleep(2);
        }
    }

    private static void WaitUntilAttached(Process strace)
    {
        // strace says "strace: Process TID attached" on standard error once the thread is traced.
        var line = strace.StandardError.ReadLineAsync().WaitAsync(TimeSpan.FromSeconds(10)).GetAwaiter().GetResult();
        Assert.True(line is not null && line.Contains("attached", StringComparison.Ordinal), $"strace said: {line}");
    }

    /// <summary>The calls and errors columns of strace -c's row for <paramref name="call"/> (0, 0 when it has none).</summary>
    private static (long Calls, long Errors) ReceiveCalls(string summary, string call)
    {
        // "% time  seconds  usecs/call  calls  errors  syscall": the last three columns of the call's row.
        var row = Regex.Match(summary, $@"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(?<calls>\d+)\s+(?:(?<errors>\d+)\s+)?{call}\s*$", RegexOptions.Multiline | RegexOptions.CultureInvariant);
        if (!row.Success)
        {
            Assert.Contains("total", summary, StringComparison.Ordinal);
            return (0, 0);
        }

        var errors = row.Groups["errors"].Success ? long.Parse(row.Groups["errors"].Value, System.Globalization.CultureInfo.InvariantCulture) : 0;
        return (long.Parse(row.Groups["calls"].Value, System.Globalization.CultureInfo.InvariantCulture), errors);
    }

    private static DatagramSocket Open() => new(new DatagramSocketOptions
    {
        LocalEndPoint = new IPEndPoint(IPAddress.Loopback, 0),
        Backend = DatagramBackend.LinuxBatched,
        ReceiveBufferSize = 1 << 20,
    });
}
