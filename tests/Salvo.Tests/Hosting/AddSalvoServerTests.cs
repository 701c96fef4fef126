using System.Collections.Concurrent;
using System.Diagnostics.Metrics;
using System.Net;
using System.Net.Sockets;
using System.Runtime.Versioning;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Salvo.Hosting;
using Salvo.Server;
using Salvo.Tests.Server;

namespace Salvo.Tests.Hosting;

public sealed class AddSalvoServerTests
{
    [Fact]
    public async Task AddSalvoServer_InAHost_StartsTheServerAndEchoes()
    {
        using var host = EchoHost(options =>
        {
            options.EndPoint = new IPEndPoint(IPAddress.Loopback, 9);
            options.Port = 0;
            options.Workers = 2;
            options.MaxDatagramSize = 2048;
        });
        await host.StartAsync();

        var server = host.Services.GetRequiredService<DatagramServerHostedService<EchoHandler>>().Server;
        Assert.True(server.IsRunning);
        Assert.NotEqual(9, server.LocalEndPoint.Port);
        using var client = ServerTestSupport.Client();
        client.SendTo("hosted"u8, SocketFlags.None, server.LocalEndPoint);
        var reply = new byte[16];
        EndPoint from = new IPEndPoint(IPAddress.Any, 0);
        var length = client.ReceiveFrom(reply, ref from);
        Assert.Equal("hosted"u8.ToArray(), reply[..length]);

        await host.StopAsync();
        Assert.False(server.IsRunning);
    }

    [Fact]
    public async Task AddSalvoServer_InAHost_PublishesOnTheHostsMeterFactory()
    {
        using var host = EchoHost(options =>
        {
            options.EndPoint = new IPEndPoint(IPAddress.Loopback, 0);
            options.Workers = 1;
        });
        var hostMeters = host.Services.GetRequiredService<IMeterFactory>();
        var published = new ConcurrentBag<string>();
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, _) =>
        {
            if (instrument.Meter.Scope == hostMeters)
            {
                published.Add(instrument.Name);
            }
        };
        listener.Start();

        await host.StartAsync();
        await host.StopAsync();

        Assert.Contains("salvo.server.datagrams.received", published);
    }

    [Theory]
    [InlineData(nameof(DatagramServerOptions.Port))]
    [InlineData(nameof(DatagramServerOptions.Workers))]
    [InlineData(nameof(DatagramServerOptions.BatchSize))]
    [InlineData(nameof(DatagramServerOptions.QueueCapacity))]
    [InlineData(nameof(DatagramServerOptions.EndPoint))]
    [InlineData(nameof(DatagramServerOptions.MaxDatagramSize))]
    public async Task AddSalvoServer_WithAnInvalidOption_FailsStartUpNamingIt(string option)
    {
        using var host = EchoHost(options =>
        {
            options.EndPoint = new IPEndPoint(IPAddress.Loopback, 0);
            options.Workers = 1;
            Break(options, option);
        });

        var error = await Assert.ThrowsAsync<OptionsValidationException>(() => host.StartAsync());
        Assert.Contains(option, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    [SupportedOSPlatform("linux")]
    public async Task AddSalvoServer_OnAfXdpWithTwoWorkers_FailsStartUpNamingWorkers()
    {
        using var host = EchoHost(options =>
        {
            options.EndPoint = new IPEndPoint(IPAddress.Parse("198.18.0.1"), 0);
            options.Backend = DatagramBackend.AfXdp;
            options.Workers = 2;
        });

        var error = await Assert.ThrowsAsync<OptionsValidationException>(() => host.StartAsync());
        Assert.Contains("Workers must be 1 with Backend AfXdp", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void AddSalvoServer_WithATypeThatIsNoHandler_ThrowsNamingTheType()
    {
        var services = new ServiceCollection();
        var error = Assert.Throws<ArgumentException>(() => services.AddSalvoServer<AddSalvoServerTests>(_ => { }));
        Assert.Contains(nameof(AddSalvoServerTests), error.Message, StringComparison.Ordinal);
    }

    private static void Break(DatagramServerOptions options, string option)
    {
        switch (option)
        {
            case nameof(DatagramServerOptions.Port):
                options.Port = 70_000;
                break;
            case nameof(DatagramServerOptions.Workers):
                options.Workers = 0;
                break;
            case nameof(DatagramServerOptions.BatchSize):
                options.BatchSize = 0;
                break;
            case nameof(DatagramServerOptions.QueueCapacity):
                options.QueueCapacity = 0;
                break;
            case nameof(DatagramServerOptions.EndPoint):
                options.EndPoint = null!;
                break;
            case nameof(DatagramServerOptions.MaxDatagramSize):
                options.MaxDatagramSize = 70_000;
                break;
            default:
                throw new ArgumentOutOfRangeException(nameof(option), option, "No way to break this option.");
        }
    }

    /// <summary>A host running an echo server configured by <paramref name="configure"/>, not yet started.</summary>
    private static IHost EchoHost(Action<DatagramServerOptions> configure)
    {
        var builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Services.AddSalvoServer<EchoHandler>(configure);
        return builder.Build();
    }
}
