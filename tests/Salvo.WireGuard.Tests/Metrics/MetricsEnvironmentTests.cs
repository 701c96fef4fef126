using System.Net;
using Salvo.WireGuard.Metrics;

namespace Salvo.WireGuard.Tests.Metrics;

/// <summary>The wg-quick form's metrics settings, read from the environment wg-quick passes on.</summary>
public sealed class MetricsEnvironmentTests
{
    [Fact]
    public void Unset_GivesNoEndpoint()
    {
        Assert.Null(MetricsOptions.FromEnvironment(_ => null));
        Assert.Null(MetricsOptions.FromEnvironment(_ => string.Empty));
    }

    [Theory]
    [InlineData("9586", "127.0.0.1:9586", false, null)]
    [InlineData("[::1]:9586", "[::1]:9586", true, "1")]
    [InlineData("0.0.0.0:0", "0.0.0.0:0", false, "0")]
    public void Listen_AsTheOptionTakesIt(string listen, string endpoint, bool perPeer, string? perPeerValue)
    {
        var options = MetricsOptions.FromEnvironment(name => name switch
        {
            MetricsOptions.ListenVariable => listen,
            MetricsOptions.PerPeerVariable => perPeerValue,
            _ => null,
        });

        Assert.NotNull(options);
        Assert.Equal(IPEndPoint.Parse(endpoint), options.Listen);
        Assert.Equal(perPeer, options.PerPeer);
    }

    [Theory]
    [InlineData("localhost:9586", null, "WIREGUARD_SALVO_METRICS_LISTEN: 'localhost:9586' is not PORT or ADDR:PORT")]
    [InlineData("70000", null, "WIREGUARD_SALVO_METRICS_LISTEN: '70000' is not PORT or ADDR:PORT")]
    [InlineData("9586", "yes", "WIREGUARD_SALVO_METRICS_PER_PEER: 'yes' is not 0 or 1")]
    [InlineData(null, "1", "WIREGUARD_SALVO_METRICS_PER_PEER needs WIREGUARD_SALVO_METRICS_LISTEN set to PORT or ADDR:PORT")]
    public void BadValue_IsRefusedNamingTheVariable(string? listen, string? perPeer, string expected)
    {
        var error = Assert.Throws<DaemonException>(() => MetricsOptions.FromEnvironment(name => name switch
        {
            MetricsOptions.ListenVariable => listen,
            MetricsOptions.PerPeerVariable => perPeer,
            _ => null,
        }));

        Assert.StartsWith(expected, error.Message, StringComparison.Ordinal);
    }
}
