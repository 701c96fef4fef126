using System.Net;
using Salvo.Perf.Rr;

namespace Salvo.Perf.Tests;

/// <summary>The rr responder never amplifies toward a non-loopback source (a reflection risk).</summary>
public sealed class RrAmplificationTests
{
    [Theory]
    [InlineData("127.0.0.1", 65_507)]
    [InlineData("::1", 65_507)]
    [InlineData("::ffff:127.0.0.9", 65_507)]
    [InlineData("198.18.0.5", RrWire.MinRequest)]
    [InlineData("2001:db8::7", RrWire.MinRequest)]
    public void SmallRequestAskingForTheLargestResponse_IsAnsweredInFullOnlyOnLoopback(string source, int expectedLength)
    {
        var request = new byte[RrWire.MinRequest];
        RrWire.WriteRequest(request, slot: 1, sequence: 7, timeNanoseconds: 0, responseLength: 65_507);
        var replies = new SendBatch(capacity: 1);

        Assert.True(RrWire.TryAnswer(request, DatagramAddress.Create(IPAddress.Parse(source), 5000), replies, out var malformed));

        Assert.False(malformed);
        Assert.Equal(expectedLength, replies.GetPayload(0).Length);
    }
}
