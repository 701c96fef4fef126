using System.Text;

namespace Salvo.Tunnel.Tests.Crypto;

/// <summary>The ChaCha20-Poly1305 AEAD test vector of RFC 8439 section 2.8.2.</summary>
internal static class Rfc8439Vector
{
    public const string Ciphertext =
        "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b" +
        "1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc" +
        "3ff4def08e4b7a9de576d26586cec64b6116";

    public const string Tag = "1ae10b594f09e26a7e902ecbd0600691";

    public static readonly byte[] Plaintext = Encoding.ASCII.GetBytes(
        "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.");

    public static readonly byte[] Key = Enumerable.Range(0x80, 32).Select(i => (byte)i).ToArray();
    public static readonly byte[] Nonce = Hex.Bytes("070000004041424344454647");
    public static readonly byte[] AssociatedData = Hex.Bytes("50515253c0c1c2c3c4c5c6c7");
}
