using System.Text;
using Salvo.Tunnel.Crypto;

namespace Salvo.Tunnel.Tests.Crypto;

/// <summary>
/// BLAKE2s against RFC 7693 appendix B ("abc") and values from an independent implementation (Python's hashlib
/// and hmac) for the keyed 16-byte MAC and HMAC-BLAKE2s that RFC 7693 does not list.
/// </summary>
public sealed class Blake2sTests
{
    private static readonly byte[] s_key = Enumerable.Range(0, 32).Select(i => (byte)i).ToArray();
    private readonly INoiseHash _hash = new BouncyCastleBlake2s();

    [Fact]
    public void Hash_Rfc7693Abc_MatchesAppendixB()
    {
        var output = new byte[32];
        _hash.Hash("ab"u8, "c"u8, output);
        Assert.Equal("508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982", Hex.Of(output));
    }

    [Fact]
    public void Mac_KeyedSixteenBytes_MatchesIndependentImplementation()
    {
        // python3: hashlib.blake2s(b'WireGuard', key=bytes(range(32)), digest_size=16).hexdigest()
        var output = new byte[16];
        _hash.Mac(s_key, Encoding.ASCII.GetBytes("WireGuard"), output);
        Assert.Equal("c44bc1a201f2ff374d10eda15244ad8a", Hex.Of(output));
    }

    [Fact]
    public void Hmac_Blake2s_MatchesIndependentImplementation()
    {
        // python3: hmac.new(bytes(range(32)), b'WireGuard', hashlib.blake2s).hexdigest()
        var output = new byte[32];
        _hash.Hmac(s_key, "Wire"u8, "Guard"u8, output);
        Assert.Equal("5415924543576b3f5ee867c94e1aab70586d33b32fae3fccd2c635b3e1d7198d", Hex.Of(output));
    }
}
