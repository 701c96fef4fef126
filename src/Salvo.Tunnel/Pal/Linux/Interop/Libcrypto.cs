namespace Salvo.Interop.Linux;

/// <summary>OpenSSL's libcrypto (3.x), for its ChaCha20-Poly1305; one import per file beside this one.</summary>
internal static partial class Libcrypto
{
    /// <summary>The runtime name of OpenSSL 3's libcrypto on Debian, Ubuntu and Fedora (the .NET runtime's own TLS loads it).</summary>
    public const string LibraryName = "libcrypto.so.3";

    /// <summary>OSSL_PARAM_OCTET_STRING (include/openssl/core.h): the value is the bytes at the parameter's data pointer.</summary>
    public const uint OSSL_PARAM_OCTET_STRING = 5;
}
