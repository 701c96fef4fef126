using System.Globalization;
using System.Text.RegularExpressions;
using Salvo.Perf.Cli;

namespace Salvo.Perf.Tests;

/// <summary>
/// One UDP payload limit: the library's, which the size options enforce, their help states and docs/cli.md quotes.
/// </summary>
public sealed partial class DatagramSizeLimitTests
{
    private static readonly string Limit = MaxUdpPayloadText();

    [Fact]
    public void Limit_IsTheLibrarysIPv4Payload()
    {
        Assert.Equal(65_535 - 20 - 8, ValueParsers.MaxUdpPayload);
        Assert.Equal(SendBatch.DefaultMaxDatagramSize, ValueParsers.MaxUdpPayload);
    }

    [Fact]
    public void Help_EveryByteSizeOption_StatesTheLimit()
    {
        var stated = 0;
        // connections sends framed TCP messages (up to 64 KiB, the framers' default), not datagrams.
        foreach (var (path, command) in HelpTextTests.Walk(HelpTextTests.Root(), includeHidden: true).Where(c => !c.Path.StartsWith("connections", StringComparison.Ordinal)))
        {
            foreach (var option in command.Options.Where(o => o.HelpName?.StartsWith("BYTES", StringComparison.Ordinal) == true))
            {
                foreach (Match number in NearTheLimit().Matches(option.Description ?? string.Empty))
                {
                    Assert.True(IsTheLimit(number.Value), $"salvo {path} {option.Name}: '{option.Description}' states {number.Value}, not {Limit}.");
                    stated++;
                }
            }
        }

        // -l on loopback, client and sweep; --request and --response on rr and sweep; lab receive's --size.
        Assert.True(stated >= 6, $"only {stated} size options state a limit near 65,535: the check found too little to check.");
    }

    [Fact]
    public void CliDocs_EverySizeStatement_QuotesTheLimit()
    {
        var quoted = 0;
        foreach (var line in File.ReadLines(Path.Combine(AppContext.BaseDirectory, "docs", "cli.md")))
        {
            var aboutSizes = (line.StartsWith('|') && line.Contains("BYTES", StringComparison.Ordinal))
                || line.Contains("payload limit", StringComparison.Ordinal) || line.Contains("the UDP limit", StringComparison.Ordinal)
                || line.Contains("--msg-size", StringComparison.Ordinal);
            if (!aboutSizes)
            {
                continue;
            }

            foreach (Match number in NearTheLimit().Matches(line))
            {
                Assert.True(IsTheLimit(number.Value), $"docs/cli.md states {number.Value} where the limit is {Limit}: {line}");
                quoted++;
            }
        }

        Assert.True(quoted >= 6, $"docs/cli.md quotes the limit only {quoted} times: the check found too little to check.");
    }

    // Prose writes "65,507", a default list "65507": the same number.
    private static bool IsTheLimit(string number) =>
        int.Parse(number.Replace(",", string.Empty, StringComparison.Ordinal), CultureInfo.InvariantCulture) == ValueParsers.MaxUdpPayload;

    private static string MaxUdpPayloadText() => ValueParsers.MaxUdpPayload.ToString("N0", CultureInfo.InvariantCulture);

    // A number within the last hundred below 65,536, as written in text ("65,507") or code ("65507").
    [GeneratedRegex(@"\b65,?5\d\d\b")]
    private static partial Regex NearTheLimit();
}
