using Salvo.Perf.Protocol;
using Salvo.Perf.Rr;

namespace Salvo.Perf.Tests;

public sealed class PayloadHeaderTests
{
    [Fact]
    public void WriteThenRead_RoundTrips()
    {
        var buffer = new byte[100];
        var header = new PayloadHeader(PayloadKind.Data, 7, 123_456_789_012, -42);

        header.Write(buffer);

        Assert.Equal(HeaderError.None, PayloadHeader.TryRead(buffer, out var read));
        Assert.Equal(header, read);
        Assert.Equal("SLVO"u8.ToArray(), buffer[..4]);
    }

    [Fact]
    public void TryRead_TooShort_IsRejected()
    {
        var buffer = new byte[PayloadHeader.Size];
        new PayloadHeader(PayloadKind.Data, 0, 1, 1).Write(buffer);

        Assert.Equal(HeaderError.TooShort, PayloadHeader.TryRead(buffer.AsSpan(0, PayloadHeader.Size - 1), out _));
    }

    [Fact]
    public void TryRead_BadMagic_IsRejected()
    {
        var buffer = Valid();
        buffer[0] ^= 0xFF;

        Assert.Equal(HeaderError.BadMagic, PayloadHeader.TryRead(buffer, out _));
    }

    [Fact]
    public void TryRead_OtherVersion_IsRejected()
    {
        var buffer = Valid();
        buffer[4] = 2;

        Assert.Equal(HeaderError.BadVersion, PayloadHeader.TryRead(buffer, out _));
    }

    [Fact]
    public void TryRead_UnknownKind_IsRejected()
    {
        var buffer = Valid();
        buffer[5] = 9;

        Assert.Equal(HeaderError.BadKind, PayloadHeader.TryRead(buffer, out _));
    }

    [Fact]
    public void TryRead_RandomBytes_NeverThrows()
    {
        var random = new Random(1234);
        for (var i = 0; i < 2000; i++)
        {
            var buffer = new byte[random.Next(0, 64)];
            random.NextBytes(buffer);
            if (i % 2 == 0 && buffer.Length >= 4)
            {
                "SLVO"u8.CopyTo(buffer);
            }

            _ = PayloadHeader.TryRead(buffer, out _);
            _ = RrWire.TryReadRequest(buffer, out _);
        }
    }

    [Fact]
    public void Write_IntoTooSmallBuffer_Throws()
    {
        Assert.Throws<ArgumentException>(() => new PayloadHeader(PayloadKind.Data, 0, 0, 0).Write(new byte[10]));
    }

    [Fact]
    public void RrRequest_CarriesTheResponseLength_ClampedToUdp()
    {
        var request = new byte[RrWire.MinRequest];
        RrWire.WriteRequest(request, 3, 9, 100, 70_000);

        Assert.Equal(65_507, RrWire.TryReadRequest(request, out var header));
        Assert.Equal(PayloadKind.Request, header.Kind);
        Assert.Equal(3, header.FlowId);
    }

    [Fact]
    public void RrRequest_DataDatagram_IsNotARequest()
    {
        Assert.Equal(-1, RrWire.TryReadRequest(Valid(), out _));
    }

    private static byte[] Valid()
    {
        var buffer = new byte[64];
        new PayloadHeader(PayloadKind.Data, 1, 2, 3).Write(buffer);
        return buffer;
    }
}
