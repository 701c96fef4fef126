using System.Net;
using System.Runtime.Versioning;
using Salvo.Pal;
using Salvo.Server;

namespace Salvo.Tests.Server;

public sealed class DatagramServerOptionsTests
{
    public static TheoryData<string, Action<DatagramServerOptions>> BadOptions => new()
    {
        { nameof(DatagramServerOptions.EndPoint), o => o.EndPoint = null! },
        { nameof(DatagramServerOptions.Port), o => o.Port = -1 },
        { nameof(DatagramServerOptions.Port), o => o.Port = 65_536 },
        { nameof(DatagramServerOptions.Workers), o => o.Workers = 0 },
        { nameof(DatagramServerOptions.BatchSize), o => o.BatchSize = 0 },
        { nameof(DatagramServerOptions.BatchSize), o => o.BatchSize = 2000 },
        { nameof(DatagramServerOptions.MaxDatagramSize), o => o.MaxDatagramSize = 0 },
        { nameof(DatagramServerOptions.ReceiveBufferSize), o => o.ReceiveBufferSize = -1 },
        { nameof(DatagramServerOptions.QueueCapacity), o => o.QueueCapacity = 0 },
        { nameof(DatagramServerOptions.QueueBytes), o => o.QueueBytes = 10 },
        { nameof(DatagramServerOptions.DrainTimeout), o => o.DrainTimeout = TimeSpan.FromSeconds(-2) },
        { nameof(DatagramServerOptions.BusyPoll), o => o.BusyPoll = TimeSpan.FromSeconds(1) },
        { nameof(DatagramServerOptions.KernelBusyPollMicroseconds), o => o.KernelBusyPollMicroseconds = -1 },
        { nameof(DatagramServerOptions.OverflowPolicy), o => o.OverflowPolicy = (QueueOverflowPolicy)9 },
    };

    [Theory]
    [MemberData(nameof(BadOptions))]
    public void Validate_WithABadValue_ThrowsNamingTheOption(string option, Action<DatagramServerOptions> breakIt)
    {
        var options = new DatagramServerOptions();
        breakIt(options);
        var error = Assert.ThrowsAny<ArgumentException>(options.Validate);
        Assert.Equal(option, error.ParamName);
        Assert.Contains(option, error.Message, StringComparison.Ordinal);
        Assert.Throws<ArgumentException>(() => new DatagramServer(options, new EchoHandler()));
    }

    public static TheoryData<string, string, int> AfXdpRefusals => new()
    {
        { nameof(DatagramServerOptions.Workers), "198.18.0.1", 2 },
        { nameof(DatagramServerOptions.EndPoint), "0.0.0.0", 1 },
        { nameof(DatagramServerOptions.EndPoint), "::", 1 },
        { nameof(DatagramServerOptions.EndPoint), "127.0.0.1", 1 },
    };

    [Theory]
    [MemberData(nameof(AfXdpRefusals))]
    [SupportedOSPlatform("linux")]
    public void Validate_OnAfXdpWithWhatItCannotTake_NamesTheOptionAndTheBackend(string option, string address, int workers)
    {
        var options = new DatagramServerOptions
        {
            Backend = DatagramBackend.AfXdp,
            EndPoint = new IPEndPoint(IPAddress.Parse(address), 0),
            Workers = workers,
        };

        var error = Assert.Single(options.GetErrors(), e => e.StartsWith(option, StringComparison.Ordinal));
        Assert.Contains("AfXdp", error, StringComparison.Ordinal);
        Assert.Contains(option == nameof(DatagramServerOptions.Workers) ? $"was {workers}" : $"was {address}", error, StringComparison.Ordinal);
        Assert.Throws<ArgumentException>(() => new DatagramServer(options, new EchoHandler()));
    }

    [RequiresFact(Requirement.Linux)]
    [SupportedOSPlatform("linux")]
    public void Validate_OnAfXdp_SaysThePlatformsRuleAndNamesWhatTheCallerChoseFirst()
    {
        var options = new DatagramServerOptions
        {
            Backend = DatagramBackend.AfXdp,
            EndPoint = new IPEndPoint(IPAddress.Any, 0),
            Workers = 2,
        };

        // The rule is the platform's, in its words; the options add only which option it is about.
        var error = Assert.Throws<ArgumentException>(options.Validate);
        Assert.Equal(nameof(DatagramServerOptions.Workers), error.ParamName);
        Assert.Contains(Platform.Current.RefuseSharedPort(DatagramBackend.AfXdp)!, error.Message, StringComparison.Ordinal);
        Assert.Contains(options.GetErrors(), e => e.Contains(Platform.Current.RefuseLocalAddress(DatagramBackend.AfXdp, IPAddress.Any)!, StringComparison.Ordinal));
        Assert.Null(Platform.Current.RefuseSharedPort(DatagramBackend.LinuxBatched));
        Assert.Null(Platform.Current.RefuseLocalAddress(DatagramBackend.AfXdp, IPAddress.Parse("198.18.0.1")));
    }

    [Fact]
    [SupportedOSPlatform("linux")]
    public void Validate_OnAfXdpWithOneWorkerOnAnInterfaceAddress_FindsNothingOfItsOwn()
    {
        var options = new DatagramServerOptions
        {
            Backend = DatagramBackend.AfXdp,
            EndPoint = new IPEndPoint(IPAddress.Parse("198.18.0.1"), 0),
            Workers = 1,
        };

        Assert.DoesNotContain(options.GetErrors(), e => e.StartsWith(nameof(DatagramServerOptions.Workers), StringComparison.Ordinal) ||
            e.StartsWith(nameof(DatagramServerOptions.EndPoint), StringComparison.Ordinal));
    }

    [Fact]
    public void Defaults_AreValid_AndMatchTheirDocumentation()
    {
        var options = new DatagramServerOptions();
        Assert.Empty(options.GetErrors());
        Assert.Equal(Environment.ProcessorCount, options.Workers);
        Assert.Equal(64, options.BatchSize);
        Assert.Equal(ServerIoModel.DedicatedThread, options.IoModel);
        Assert.Equal(ServerProcessing.Inline, options.Processing);
        Assert.Equal(QueueOverflowPolicy.Wait, options.OverflowPolicy);
        Assert.Equal(new IPEndPoint(IPAddress.Any, 0), options.EndPoint);
        Assert.Equal(TimeSpan.Zero, options.BusyPoll);
    }

    [Fact]
    public async Task Server_KeepsItsOwnCopyOfTheOptions()
    {
        var options = ServerTestSupport.LoopbackOptions(workers: 2);
        await using var server = new DatagramServer(options, new EchoHandler());
        options.Workers = 5;
        await server.StartAsync();
        Assert.Equal(2, server.WorkerCount);
    }
}
