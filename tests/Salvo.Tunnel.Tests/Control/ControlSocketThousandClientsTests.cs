using System.Diagnostics;
using Salvo.Tunnel.Control;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Control;

/// <summary>
/// A client that connects 1,000 times and sends nothing, at the default limits: the control socket serves at most its
/// 256 connections, closing the idlest for each new one, <c>wg show</c> is still answered at once and a change still
/// applies, and every connection is let go once its client has gone.
/// </summary>
public sealed class ControlSocketThousandClientsTests
{
    [Fact]
    public void Connection_AThousandAtOnce_AtMostTheLimitServed_WgAnsweredAndAChangeApplied()
    {
        const int Clients = 1_000;
        using var lab = new UapiTestDevice();
        var clients = new List<UapiClient>(Clients);
        try
        {
            for (var i = 0; i < Clients; i++)
            {
                clients.Add(new UapiClient(lab.Path));
            }

            // A connect returns once the kernel has queued it: wait until the server has taken all of them (served or
            // closed to make room), so the get below is timed alone, not behind the backlog.
            var accepted = DateTime.UtcNow.AddSeconds(10);
            while (lab.Control.Counters[UapiRefusal.Evicted] + lab.Control.OpenConnections < Clients && DateTime.UtcNow < accepted)
            {
                Thread.Sleep(50);
            }

            var asked = Stopwatch.StartNew();
            Assert.EndsWith("errno=0\n", lab.Get(), StringComparison.Ordinal);
            Assert.True(asked.Elapsed < TimeSpan.FromSeconds(1), $"get took {asked.Elapsed.TotalMilliseconds:0} ms");

            // Each accept past the limit closed the idlest one; those still closing are counted until their end.
            var settled = DateTime.UtcNow.AddSeconds(10);
            while (lab.Control.OpenConnections > UapiLimits.Default.MaxConnections && DateTime.UtcNow < settled)
            {
                Thread.Sleep(50);
            }

            Assert.InRange(lab.Control.OpenConnections, 1, UapiLimits.Default.MaxConnections);
            Assert.InRange(lab.Control.Counters[UapiRefusal.Evicted], Clients - UapiLimits.Default.MaxConnections, Clients);

            // None of them holds the engine's lock or a large request's turn: a change still applies.
            Assert.Equal("errno=0\n", UapiClient.Request(lab.Path, "set=1\nfwmark=0\n\n"));
        }
        finally
        {
            clients.ForEach(client => client.Dispose());
        }

        var deadline = DateTime.UtcNow.AddSeconds(10);
        while (lab.Control.OpenConnections > 0 && DateTime.UtcNow < deadline)
        {
            Thread.Sleep(50);
        }

        Assert.Equal(0, lab.Control.OpenConnections);
    }
}
