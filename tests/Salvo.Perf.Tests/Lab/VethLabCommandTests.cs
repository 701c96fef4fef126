using System.CommandLine;
using Salvo.Perf.Cli;
using Salvo.Perf.Lab;

namespace Salvo.Perf.Tests.Lab;

/// <summary><c>salvo lab</c> before it creates anything: what it refuses and why, its options, and how it reads its ends' reports.</summary>
public sealed class VethLabCommandTests
{
    private static readonly Func<string, string?> s_everyTool = tool => "/usr/bin/" + tool;

    [Fact]
    public void Missing_NotLinux_SaysTheLabIsLinuxOnly()
    {
        var missing = LabRequirements.Missing(isLinux: false, isRoot: true, s_everyTool);

        var only = Assert.Single(missing);
        Assert.StartsWith("Linux:", only, StringComparison.Ordinal);
        Assert.Contains("network namespaces", only, StringComparison.Ordinal);
    }

    [Fact]
    public void Missing_NotRoot_AsksForRootAndNamesTheCapabilitiesAfXdpNeeds()
    {
        var missing = LabRequirements.Missing(isLinux: true, isRoot: false, s_everyTool);

        var only = Assert.Single(missing);
        Assert.StartsWith("root:", only, StringComparison.Ordinal);
        Assert.Contains("CAP_NET_RAW, CAP_NET_ADMIN and CAP_BPF", only, StringComparison.Ordinal);
    }

    [Fact]
    public void Missing_NoIpTool_NamesItsPackageAndOneAptGetLine()
    {
        var missing = LabRequirements.Missing(isLinux: true, isRoot: true, tool => tool == "ip" ? null : "/usr/bin/" + tool);

        Assert.Equal(["ip: not installed (package iproute2)", "install with: sudo apt-get install iproute2"], missing);
    }

    [Fact]
    public void Missing_NothingWhenLinuxRootAndEveryToolIsThere() =>
        Assert.Empty(LabRequirements.Missing(isLinux: true, isRoot: true, s_everyTool));

    [Theory]
    [InlineData("--sizes", "1473", "--sizes: 1473 bytes is over 1472")]
    [InlineData("--sizes", "8", "--sizes: 8 bytes is under the minimum of 16")]
    [InlineData("--parallel-levels", "1,0", "--parallel-levels: '0' is not a count from 1 to 256")]
    [InlineData("--paths", "kernel,dpdk", "--paths: 'dpdk' is not one of kernel, afxdp, afxdp-busy, c")]
    [InlineData("--time", "61", "--time")]
    [InlineData("--rounds", "10", "--rounds")]
    [InlineData("--request", "1500", "--request")]
    public void Parse_ValueOutOfRange_IsAnErrorNamingTheOption(string option, string value, string expected)
    {
        var (_, parse) = Parse(option, value);

        var error = Assert.Single(parse.Errors);
        Assert.Contains(expected, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_ACpuThisProcessMayNotUse_IsAnErrorNamingTheOption()
    {
        var (options, parse) = Parse("--receiver-cpu", "7");

        var error = Assert.Throws<CliException>(() => options.Read(parse, [0, 1], s_everyTool));
        Assert.Equal("--receiver-cpu: CPU 7 is not one this process may run on (0,1).", error.Message);
    }

    [Fact]
    public void Read_Defaults_AreTheTableOfTheDocs()
    {
        var (options, parse) = Parse();

        var settings = options.Read(parse, [0, 1], s_everyTool);

        Assert.Equal([64, 1_380], settings.Sizes);
        Assert.Equal([1, 4, 16], settings.ParallelLevels);
        Assert.Equal(512, settings.RequestBytes);
        Assert.Equal(["kernel", "afxdp", "afxdp-busy", "c"], settings.Paths);
        Assert.Equal((0, 1), (settings.SenderCpu, settings.ReceiverCpu));
        Assert.Equal("/usr/bin/cc", settings.CCompiler);
        Assert.Null(settings.CSkipped);
    }

    [Fact]
    public void Read_NoCCompiler_RunsWithoutCAndSaysWhy()
    {
        var (options, parse) = Parse();

        var settings = options.Read(parse, [0, 1], tool => tool is "cc" or "gcc" or "clang" ? null : "/usr/bin/" + tool);

        Assert.Null(settings.CCompiler);
        Assert.Equal("skipped: no C compiler found (cc, gcc, clang)", settings.CSkipped);
    }

    [Fact]
    public void Read_OnlyClang_BuildsWithClang()
    {
        var (options, parse) = Parse();

        var settings = options.Read(parse, [0, 1], tool => tool == "clang" ? "/usr/bin/clang" : null);

        Assert.Equal("/usr/bin/clang", settings.CCompiler);
    }

    [Fact]
    public void Read_CReferenceFalse_SkipsCEvenWithACompiler()
    {
        var (options, parse) = Parse("--c-reference", "false");

        var settings = options.Read(parse, [0, 1], s_everyTool);

        Assert.Null(settings.CCompiler);
        Assert.Equal("skipped: --c-reference false", settings.CSkipped);
    }

    [Fact]
    public void ResultLine_ReadsTheLastResultLinesPairs()
    {
        const string Output = "READY recv recvmmsg port 1\nrecv recvmmsg: 1.0 s\nRESULT mode=recv method=recvmmsg dur=2.0000 dgrams=1000 cpu_user=0.25 cpu_sys=0.75\n";

        var result = ResultLine.Find(Output)!;

        Assert.Equal("recvmmsg", result["method"]);
        Assert.Equal(1_000, ResultLine.Number(result, "dgrams"));
        Assert.Equal(0, ResultLine.Number(result, "missing"));
        Assert.Null(ResultLine.Find("no result here"));
    }

    [Fact]
    public void FromPpClient_ReadsRateAndPercentiles()
    {
        var outcome = LabRunner.FromPpClient("RESULT mode=ppclient req=512 resp=512 n=1 dur=1.0000 completed=406 rps=406 p50=249.4 p90=7837.2 p99=20135.2 lost=0")!;

        Assert.Equal((406, 249.4, 20135.2), (outcome.First, outcome.Second, outcome.Third));
    }

    [Fact]
    public void FromRrJson_ReadsRateAndPercentiles_AndNothingFromNoDocument()
    {
        const string Output = """{"command":"rr","result":{"requestsPerSecond":30230.5,"latency":{"p50Microseconds":29.4,"p99Microseconds":61.0}}}""";

        var outcome = LabRunner.FromRrJson("salvo: a note first\n" + Output)!;

        Assert.Equal((30230.5, 29.4, 61.0), (outcome.First, outcome.Second, outcome.Third));
        Assert.Null(LabRunner.FromRrJson("salvo: error: no route"));
    }

    [Fact]
    public void RateTable_APathNotMeasured_ShowsWhyAndRatiosToKernelAndC()
    {
        LabRatePoint[] points =
        [
            new("kernel", 64, 500_000, 900, "salvo-LinuxBatched", [500_000], [900], null),
            new("afxdp", 64, null, null, null, [], [], "the afxdp receiver exited with 2: --backend: 'afxdp' is not one of auto"),
            new("c", 64, 400_000, 1_000, "recvmmsg", [400_000], [1_000], null),
        ];
        using var output = new StringWriter();

        Salvo.Perf.Lab.LabPrinter.RateTable(points).Write(new CliConsole(output, TextWriter.Null, isTerminal: false));

        var lines = output.ToString().Split('\n');
        Assert.Matches(@"^kernel\s+64\s+500,000\s+1\.00x\s+1\.25x\s+900\s+1\.00x\s+0\.90x\s+salvo-LinuxBatched", lines.Single(l => l.StartsWith("kernel", StringComparison.Ordinal)));
        Assert.Contains("-  the afxdp receiver exited with 2", lines.Single(l => l.StartsWith("afxdp", StringComparison.Ordinal)), StringComparison.Ordinal);
    }

    private static (LabCommand.LabOptionSet Options, ParseResult Parse) Parse(params string[] args)
    {
        var options = new LabCommand.LabOptionSet();
        var command = new Command("lab");
        options.AddTo(command);
        return (options, command.Parse(args));
    }
}
