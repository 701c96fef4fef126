using System.Net;
using Salvo.Tunnel.Control;

namespace Salvo.Tunnel.Tests.Control;

/// <summary>
/// The IPv6 text the control socket writes and reads without address objects must be .NET's own, which <c>wg</c> and
/// the tests of <c>get</c> have always seen: compared here over addresses rich in zero groups, where the rules differ.
/// </summary>
public sealed class IPv6TextTests
{
    [Fact]
    public void TryWrite_ManyAddresses_WritesWhatIPAddressWrites()
    {
        var random = new Random(5952);
        Span<byte> bytes = stackalloc byte[16];
        Span<byte> text = stackalloc byte[IPv6Text.MaxBytes];
        Span<byte> read = stackalloc byte[16];
        var handWritten = 0;
        for (var i = 0; i < 200_000; i++)
        {
            for (var group = 0; group < 8; group++)
            {
                // Mostly zeros, so runs of every length and position come up; now and then a group ISATAP or
                // IPv4-mapped forms look for.
                var value = random.Next(4) switch
                {
                    0 => random.Next(0x10000),
                    1 => random.Next(3) switch { 0 => 0xFFFF, 1 => 0x5EFE, _ => random.Next(16) },
                    _ => 0,
                };
                bytes[2 * group] = (byte)(value >> 8);
                bytes[(2 * group) + 1] = (byte)value;
            }

            var expected = new IPAddress(bytes).ToString();
            if (IPv6Text.TryWrite(bytes, text, out var written))
            {
                handWritten++;
                Assert.Equal(expected, System.Text.Encoding.ASCII.GetString(text[..written]));
            }

            // Reading it back gives the same bytes without an address object.
            Assert.True(UapiValues.TryParseIPv6(expected, read), expected);
            Assert.True(read.SequenceEqual(bytes), expected);
        }

        Assert.True(handWritten > 100_000);
    }

    [Theory]
    [InlineData("::")]
    [InlineData("::1")]
    [InlineData("1::")]
    [InlineData("fd00:5a1::f:4240")]
    [InlineData("1:2:3:4:5:6:7:8")]
    [InlineData("1:2:3:4:5:6:7::")]
    [InlineData("::ffff:10.0.0.1")]
    [InlineData("1:2:3:4:5:6:10.0.0.1")]
    [InlineData("FD00::A")]
    public void TryParseIPv6_Valid_ReadsWhatIPAddressReads(string text)
    {
        Span<byte> read = stackalloc byte[16];
        Assert.True(UapiValues.TryParseIPv6(text, read));
        Assert.True(read.SequenceEqual(IPAddress.Parse(text).GetAddressBytes()));
    }

    [Theory]
    [InlineData(":::")]
    [InlineData("1:::2")]
    [InlineData("1::2::3")]
    [InlineData(":1::2")]
    [InlineData("1::2:")]
    [InlineData("1:2:3:4:5:6:7")]
    [InlineData("1:2:3:4:5:6:7:8:9")]
    [InlineData("1:2:3:4:5:6:7:8::")]
    [InlineData("1::2:3:4:5:6:7:8")]
    [InlineData("12345::")]
    [InlineData("10.0.0.1::")]
    [InlineData("::10.0.0.1:1")]
    [InlineData("::ffff:10.0.0")]
    [InlineData("::ffff:010.0.0.1")]
    [InlineData("1.2.3.4")]
    [InlineData("")]
    [InlineData("g::")]
    public void TryParseIPv6_Invalid_Refused(string text)
    {
        Span<byte> read = stackalloc byte[16];
        Assert.False(UapiValues.TryParseIPv6(text, read));
    }
}
