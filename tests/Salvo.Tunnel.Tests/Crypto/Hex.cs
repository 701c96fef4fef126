namespace Salvo.Tunnel.Tests.Crypto;

internal static class Hex
{
    public static byte[] Bytes(string hex) => Convert.FromHexString(hex.Replace(" ", "", StringComparison.Ordinal));

    public static string Of(ReadOnlySpan<byte> bytes) => Convert.ToHexStringLower(bytes);
}
