using System.Net;
using System.Net.Sockets;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Salvo.Hosting;
using Salvo.Server;
using Salvo.Tests.Server;

namespace Salvo.Tests.Hosting;

/// <summary><c>AddSalvoServer</c> with the options in configuration: every key read, every mistake named by its key.</summary>
public sealed class ServerConfigurationTests
{
    [Fact]
    public async Task AddSalvoServer_FromConfiguration_ReadsEveryKeyAndEchoes()
    {
        using var host = EchoHost(new()
        {
            ["Salvo:Server:Endpoint"] = "127.0.0.1:0",
            ["Salvo:Server:Workers"] = "2",
            ["Salvo:Server:BatchSize"] = "32",
            ["Salvo:Server:MaxDatagramSize"] = "2048",
            ["Salvo:Server:ReceiveBufferSize"] = "262144",
            ["Salvo:Server:SendBufferSize"] = "",
            ["Salvo:Server:Backend"] = "LinuxBatched",
            ["Salvo:Server:IoModel"] = "async",
            ["Salvo:Server:Processing"] = "Queued",
            ["Salvo:Server:QueueCapacity"] = "128",
            ["Salvo:Server:QueueBytes"] = "65536",
            ["Salvo:Server:OverflowPolicy"] = "DropOldest",
            ["Salvo:Server:DrainTimeout"] = "00:00:02",
            ["Salvo:Server:DeliverTruncated"] = "true",
            ["Salvo:Server:SharePort"] = "true",
        });
        var options = host.Services.GetRequiredService<IOptionsMonitor<DatagramServerOptions>>()
            .Get(DatagramServerHostedService<EchoHandler>.OptionsName);

        Assert.Equal(new IPEndPoint(IPAddress.Loopback, 0), options.EndPoint);
        Assert.Equal(2, options.Workers);
        Assert.Equal(32, options.BatchSize);
        Assert.Equal(2048, options.MaxDatagramSize);
        Assert.Equal(262_144, options.ReceiveBufferSize);
        Assert.Null(options.SendBufferSize);
        Assert.Equal(ServerIoModel.Async, options.IoModel);
        Assert.Equal(ServerProcessing.Queued, options.Processing);
        Assert.Equal(128, options.QueueCapacity);
        Assert.Equal(65_536, options.QueueBytes);
        Assert.Equal(QueueOverflowPolicy.DropOldest, options.OverflowPolicy);
        Assert.Equal(TimeSpan.FromSeconds(2), options.DrainTimeout);
        Assert.True(options.DeliverTruncated);
        Assert.True(options.SharePort);
        if (!OperatingSystem.IsLinux())
        {
            return;
        }

        Assert.Equal(DatagramBackend.LinuxBatched, options.Backend);
        await host.StartAsync();
        var server = host.Services.GetRequiredService<DatagramServerHostedService<EchoHandler>>().Server;
        Assert.Equal(IPAddress.Loopback, server.LocalEndPoint.Address);
        Assert.Equal(2, server.SocketCount);
        Echoes(server.LocalEndPoint);
        await host.StopAsync();
    }

    [Fact]
    public async Task AddSalvoServer_FromConfigurationWithoutAnEndPoint_ListensOnLoopback()
    {
        using var host = EchoHost(new() { ["Salvo:Server:Workers"] = "1" });

        await host.StartAsync();

        var server = host.Services.GetRequiredService<DatagramServerHostedService<EchoHandler>>().Server;
        Assert.Equal(IPAddress.Loopback, server.LocalEndPoint.Address);
        Assert.NotEqual(0, server.LocalEndPoint.Port);
        await host.StopAsync();
    }

    [Fact]
    public async Task AddSalvoServer_InCodeWithOnlyAPort_ListensOnLoopback()
    {
        var builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Services.AddSalvoServer<EchoHandler>(options =>
        {
            options.Port = 0;
            options.Workers = 1;
        });
        using var host = builder.Build();

        await host.StartAsync();

        var server = host.Services.GetRequiredService<DatagramServerHostedService<EchoHandler>>().Server;
        Assert.Equal(IPAddress.Loopback, server.LocalEndPoint.Address);
        await host.StopAsync();
    }

    [Theory]
    [InlineData("Endpoint", "localhost:7007", "Salvo:Server:Endpoint: 'localhost:7007' is not an IP endpoint")]
    [InlineData("Workers", "0", "Salvo:Server:Workers: Workers must be at least 1 (was 0)")]
    [InlineData("Workers", "many", "Salvo:Server:Workers: 'many' is not a whole number")]
    [InlineData("Port", "70000", "Salvo:Server:Port: Port must be between 0 and 65,535 (was 70000)")]
    [InlineData("Backend", "Fast", "Salvo:Server:Backend: 'Fast' is not one of Auto, ")]
    [InlineData("OverflowPolicy", "7", "Salvo:Server:OverflowPolicy: '7' is not one of Wait, ")]
    [InlineData("DrainTimeout", "5s", "Salvo:Server:DrainTimeout: '5s' is not a duration")]
    [InlineData("MaxDatagramSize", "70000", "Salvo:Server:MaxDatagramSize: MaxDatagramSize must be between 1 and 65536 (was 70000)")]
    [InlineData("Wrokers", "2", "Salvo:Server:Wrokers: not an option of the server")]
    public async Task AddSalvoServer_WithABadKey_FailsStartUpNamingTheKey(string key, string value, string expected)
    {
        using var host = EchoHost(new() { ["Salvo:Server:Workers"] = "1", [$"Salvo:Server:{key}"] = value });

        var error = await Assert.ThrowsAsync<OptionsValidationException>(() => host.StartAsync());

        Assert.Contains(expected, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AddSalvoServer_FromAJsonFile_ReadsTheSection()
    {
        var file = Path.Combine(Directory.CreateTempSubdirectory("salvo-appsettings-").FullName, "appsettings.json");
        File.WriteAllText(file, """
            { "Salvo": { "Server": { "EndPoint": "127.0.0.1:0", "Workers": 1, "Processing": "Queued", "DrainTimeout": "00:00:01" } } }
            """);
        try
        {
            var builder = Host.CreateApplicationBuilder();
            builder.Logging.ClearProviders();
            builder.Configuration.AddJsonFile(file);
            builder.Services.AddSalvoServer<EchoHandler>(builder.Configuration.GetSection("Salvo:Server"));
            using var host = builder.Build();

            await host.StartAsync();

            var server = host.Services.GetRequiredService<DatagramServerHostedService<EchoHandler>>().Server;
            Assert.Equal(1, server.WorkerCount);
            Echoes(server.LocalEndPoint);
            await host.StopAsync();
        }
        finally
        {
            Directory.Delete(Path.GetDirectoryName(file)!, recursive: true);
        }
    }

    private static void Echoes(IPEndPoint server)
    {
        using var client = ServerTestSupport.Client();
        client.SendTo("configured"u8, SocketFlags.None, server);
        var reply = new byte[32];
        Assert.Equal("configured"u8.ToArray(), reply[..client.Receive(reply)]);
    }

    private static IHost EchoHost(Dictionary<string, string?> settings)
    {
        var builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Configuration.AddInMemoryCollection(settings);
        builder.Services.AddSalvoServer<EchoHandler>(builder.Configuration.GetSection("Salvo:Server"));
        return builder.Build();
    }
}
