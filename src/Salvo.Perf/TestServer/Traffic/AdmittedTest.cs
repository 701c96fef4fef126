using System.Net;
using Salvo.Perf.TestServer.Iperf3;

namespace Salvo.Perf.TestServer.Traffic;

/// <summary>A client through its handshake that holds the test slot: what the server's test loop runs next.</summary>
internal abstract class AdmittedTest : IDisposable
{
    /// <summary>How long the last word to a client may take when the server stops.</summary>
    protected static readonly TimeSpan LastWord = TimeSpan.FromSeconds(1);

    /// <summary>The client's address.</summary>
    public abstract IPEndPoint Remote { get; }

    /// <summary>Which protocol the client speaks.</summary>
    public abstract ControlClientKind Kind { get; }

    /// <summary>Tells the client, as its own protocol does, that the server is stopping and its test is over; never throws.</summary>
    public abstract Task SayStoppingAsync();

    public abstract void Dispose();
}

/// <summary>A <c>salvo client</c> whose hello was accepted.</summary>
internal sealed class SalvoAdmittedTest(ControlChannel channel, ControlMessage hello) : AdmittedTest
{
    /// <summary>The line the client prints when the server stops under its test.</summary>
    public const string StoppingReason = "the server is stopping; the test was cut short";

    public ControlChannel Channel { get; } = channel;

    public ControlMessage Hello { get; } = hello;

    public override IPEndPoint Remote => Channel.Remote;

    public override ControlClientKind Kind => ControlClientKind.Salvo;

    public override Task SayStoppingAsync() => Channel.RefuseAsync(StoppingReason, LastWord);

    public override void Dispose() => Channel.Dispose();
}

/// <summary>A stock iperf3 client whose parameters were accepted.</summary>
internal sealed class Iperf3AdmittedTest(Iperf3Control control, Iperf3Parameters parameters) : AdmittedTest
{
    public Iperf3Control Control { get; } = control;

    public Iperf3Parameters Parameters { get; } = parameters;

    public override IPEndPoint Remote => Control.Remote;

    public override ControlClientKind Kind => ControlClientKind.Iperf3;

    /// <summary>
    /// SERVER_TERMINATE, what iperf3's own server sends on SIGINT, SIGTERM or SIGHUP (iperf_got_sigend): the client
    /// then prints its summary so far and "the server has terminated" instead of "control socket has closed
    /// unexpectedly".
    /// </summary>
    public override Task SayStoppingAsync() => Control.TryWriteStateAsync(Iperf3State.ServerTerminate, LastWord);

    public override void Dispose() => Control.Dispose();
}
