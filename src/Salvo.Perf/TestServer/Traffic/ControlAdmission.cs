using System.Net.Sockets;
using System.Threading.Channels;
using Salvo.Perf.Cli;
using Salvo.Perf.TestServer.Iperf3;

namespace Salvo.Perf.TestServer.Traffic;

/// <summary>
/// Takes each control connection of <c>salvo server</c> through its handshake on the connection's own task, and
/// gives the one test slot only to a client whose handshake is through: a Salvo hello that passed its checks, or
/// iperf3's cookie and accepted parameters, each within <see cref="ServerLimits.HandshakeTimeout"/>. A client that
/// stalls holds only its own connection, never the slot (five clients sending an iperf3 cookie and nothing more
/// kept a stock client from starting for 50 s when the handshake ran in the test loop). A client that is through
/// while another test runs waits <see cref="ServerLimits.BusyGrace"/> and is then told the server is busy: iperf3's
/// ACCESS_DENIED, as iperf3's own server answers, or a Salvo error. Every refusal is answered where the protocol
/// has a way to say it, logged with its reason and counted.
/// </summary>
internal sealed class ControlAdmission(CliConsole console, ServerTally tally, ServerLimits limits) : IDisposable
{
    private static readonly TimeSpan Linger = TimeSpan.FromSeconds(1);

    private readonly SemaphoreSlim _slot = new(1, 1);
    private readonly Channel<AdmittedTest> _admitted = Channel.CreateUnbounded<AdmittedTest>(new UnboundedChannelOptions { SingleReader = true });
    private volatile string? _holder;

    /// <summary>Runs the handshake of a sorted connection; returns when it is refused or handed to the test loop. Never throws.</summary>
    public Task AdmitAsync(Socket socket, ControlClientKind kind, CancellationToken stop) => kind switch
    {
        ControlClientKind.Silent => RejectSilent(socket),
        ControlClientKind.Iperf3 => AdmitIperf3Async(socket, stop),
        _ => AdmitSalvoAsync(socket, stop),
    };

    /// <summary>The next client that holds the slot; give the slot back with <see cref="Release"/> when its test is over.</summary>
    /// <exception cref="OperationCanceledException">The server is stopping.</exception>
    public ValueTask<AdmittedTest> NextAsync(CancellationToken cancellationToken) => _admitted.Reader.ReadAsync(cancellationToken);

    /// <summary>Frees the slot for the next client.</summary>
    public void Release()
    {
        _holder = null;
        _slot.Release();
    }

    /// <summary>Clients admitted but never run (the server stopped first) are told so and closed.</summary>
    public void Dispose()
    {
        _admitted.Writer.TryComplete();
        while (_admitted.Reader.TryRead(out var test))
        {
            test.SayStoppingAsync().Wait(TimeSpan.FromSeconds(2));
            test.Dispose();
        }
    }

    private Task RejectSilent(Socket socket)
    {
        console.Note($"salvo server: rejected {socket.RemoteEndPoint}: sent nothing within {limits.SortTimeout.TotalSeconds:0.#} s; waiting for the next client");
        tally.Refused(ServerTally.Refusal.Silent);
        socket.Dispose();
        return Task.CompletedTask;
    }

    /// <summary>What a misbehaving or vanished client makes its handshake or test end with; the server goes on to the next one.</summary>
    public static bool IsClientFailure(Exception e) => e is InvalidDataException or TimeoutException or EndOfStreamException or IOException or SocketException;

    private Task AdmitSalvoAsync(Socket socket, CancellationToken stop)
    {
        var channel = new ControlChannel(socket);
        return AdmitAsync(channel, () => SalvoHandshakeAsync(channel, stop),
            e => console.Note($"salvo server: rejected {channel.Remote}: {e.Message}; waiting for the next client"),
            () => channel.RefuseAsync(SalvoAdmittedTest.StoppingReason, Linger), stop);
    }

    private Task AdmitIperf3Async(Socket socket, CancellationToken stop)
    {
        var control = new Iperf3Control(socket);
        return AdmitAsync(control, () => Iperf3HandshakeAsync(control, stop),
            e => console.Note($"salvo server: iperf3 client {control.Remote}: test ended: {e.Message}"),
            () => control.TryWriteStateAsync(Iperf3State.ServerTerminate, Linger), stop);
    }

    /// <summary>
    /// Runs one connection's handshake: a client through it is handed to the test loop, one refused is closed (its
    /// handshake has answered and logged it), one that fails is logged, and when the server stops the client is told.
    /// </summary>
    private async Task AdmitAsync(IDisposable connection, Func<Task<AdmittedTest?>> handshake, Action<Exception> logFailure, Func<Task> sayStopping, CancellationToken stop)
    {
        var admitted = false;
        try
        {
            if (await handshake().ConfigureAwait(false) is { } test)
            {
                admitted = HandOver(test);
            }
        }
        catch (Exception e) when (IsClientFailure(e) && !stop.IsCancellationRequested)
        {
            logFailure(e);
            tally.Refused(ServerTally.Refusal.BadRequest);
        }
        catch (Exception e) when ((e is OperationCanceledException || IsClientFailure(e)) && stop.IsCancellationRequested)
        {
            await sayStopping().ConfigureAwait(false);
        }
        finally
        {
            if (!admitted)
            {
                connection.Dispose();
            }
        }
    }

    /// <summary>The hello, checked, and the slot; null when the client was refused (answered, logged and counted).</summary>
    private async Task<AdmittedTest?> SalvoHandshakeAsync(ControlChannel channel, CancellationToken stop)
    {
        ControlMessage hello;
        try
        {
            hello = await channel.ReceiveAsync(limits.HandshakeTimeout, stop).ConfigureAwait(false);
        }
        catch (EndOfStreamException e)
        {
            // Nothing to answer: a port scan or 'nc -z' that closed.
            console.Note($"salvo server: rejected {channel.Remote}: {e.Message}; waiting for the next client");
            tally.Refused(ServerTally.Refusal.Silent);
            return null;
        }
        catch (Exception e) when (e is InvalidDataException or TimeoutException)
        {
            return await RefuseSalvoAsync(channel, e.Message, ServerTally.Refusal.BadRequest).ConfigureAwait(false);
        }

        if (hello.ValidateHello() is { } reason)
        {
            return await RefuseSalvoAsync(channel, reason, ServerTally.Refusal.BadRequest).ConfigureAwait(false);
        }

        return await ClaimAsync(channel.Remote.ToString(), stop).ConfigureAwait(false)
            ? new SalvoAdmittedTest(channel, hello)
            : await RefuseSalvoAsync(channel, BusyReason(), ServerTally.Refusal.Busy).ConfigureAwait(false);
    }

    /// <summary>Logs, then answers: a client that reads its reply and looks at the log finds both. Returns null, no test.</summary>
    private async Task<AdmittedTest?> RefuseSalvoAsync(ControlChannel channel, string reason, ServerTally.Refusal why)
    {
        console.Note($"salvo server: rejected {channel.Remote}: {reason}; waiting for the next client");
        tally.Refused(why);
        await channel.RefuseAsync(reason, Linger).ConfigureAwait(false);
        return null;
    }

    /// <summary>The cookie and parameters, and the slot; null when the client was refused (answered, logged and counted).</summary>
    private async Task<AdmittedTest?> Iperf3HandshakeAsync(Iperf3Control control, CancellationToken stop)
    {
        if (await Iperf3ServerSession.HandshakeAsync(console, control, limits.HandshakeTimeout, stop).ConfigureAwait(false) is not { } parameters)
        {
            tally.Refused(ServerTally.Refusal.BadRequest);
            return null;
        }

        if (await ClaimAsync(control.Remote.ToString(), stop).ConfigureAwait(false))
        {
            return new Iperf3AdmittedTest(control, parameters);
        }

        console.Note($"salvo server: refused iperf3 client {control.Remote}: {BusyReason()} (the client prints \"the server is busy running a test. try again later\")");
        tally.Refused(ServerTally.Refusal.Busy);
        await control.TryWriteStateAsync(Iperf3State.AccessDenied, Linger).ConfigureAwait(false);
        return null;
    }

    /// <summary>Waits up to <see cref="ServerLimits.BusyGrace"/> for the slot; true when <paramref name="client"/> has it.</summary>
    private async Task<bool> ClaimAsync(string client, CancellationToken stop)
    {
        if (!await _slot.WaitAsync(limits.BusyGrace, stop).ConfigureAwait(false))
        {
            return false;
        }

        _holder = client;
        return true;
    }

    /// <summary>Queues a client that holds the slot for the test loop; false (the slot freed) when the loop has stopped taking any.</summary>
    private bool HandOver(AdmittedTest test)
    {
        if (_admitted.Writer.TryWrite(test))
        {
            return true;
        }

        Release();
        return false;
    }

    private string BusyReason() => $"busy: the server is running a test for {_holder ?? "another client"}; try again when it ends";
}
