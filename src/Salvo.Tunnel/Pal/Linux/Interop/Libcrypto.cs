namespace Salvo.Interop.Linux;

/// <summary>OpenSSL's libcrypto (3.x), for its ChaCha20-Poly1305; one import per file beside this one.</summary>
internal static partial class Libcrypto
{
    /// <summary>The runtime name of OpenSSL 3's libcrypto on Debian, Ubuntu and Fedora (the .NET runtime's own TLS loads it).</summary>
    public const string LibraryName = "libcrypto.so.3";

    /// <summary>EVP_CTRL_AEAD_GET_TAG (include/openssl/evp.h).</summary>
    public const int EVP_CTRL_AEAD_GET_TAG = 0x10;

    /// <summary>EVP_CTRL_AEAD_SET_TAG (include/openssl/evp.h).</summary>
    public const int EVP_CTRL_AEAD_SET_TAG = 0x11;
}
