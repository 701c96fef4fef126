using System.Security.Cryptography;

namespace Salvo.Perf.TestServer.Iperf3;

/// <summary>
/// The 37 bytes an iperf3 client sends first on the control connection: 36 characters from the
/// lowercase base32 alphabet (a-z, 2-7) and a NUL. The server keeps it to tell its client's data
/// connections from others (TCP tests only); for UDP it only marks the start of the exchange.
/// </summary>
internal static class Iperf3Cookie
{
    /// <summary>Bytes on the wire, the NUL included.</summary>
    public const int Size = 37;

    private const string Alphabet = "abcdefghijklmnopqrstuvwxyz234567";

    /// <summary>Whether <paramref name="first"/> can start a cookie (and so cannot start Salvo's JSON hello).</summary>
    public static bool CanStart(byte first) => Alphabet.Contains((char)first, StringComparison.Ordinal);

    /// <summary>Checks a received cookie; returns why it is not one, or null.</summary>
    public static string? Validate(ReadOnlySpan<byte> cookie)
    {
        if (cookie.Length != Size)
        {
            return $"the cookie has {cookie.Length} bytes; iperf3 sends {Size}";
        }

        for (var i = 0; i < Size - 1; i++)
        {
            if (!CanStart(cookie[i]))
            {
                return $"cookie byte {i} is 0x{cookie[i]:x2}, not a base32 character";
            }
        }

        return cookie[Size - 1] == 0 ? null : "the cookie does not end with a NUL byte";
    }

    /// <summary>A fresh random cookie.</summary>
    public static byte[] Create()
    {
        var cookie = new byte[Size];
        for (var i = 0; i < Size - 1; i++)
        {
            cookie[i] = (byte)Alphabet[RandomNumberGenerator.GetInt32(Alphabet.Length)];
        }

        return cookie;
    }
}
