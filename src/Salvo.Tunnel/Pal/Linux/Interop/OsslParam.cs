using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// x86-64 and arm64 (LP64); the size and the offsets are asserted in TunAbiTests.

/// <summary>
/// <c>OSSL_PARAM</c> (include/openssl/core.h): a parameter's NUL-terminated name, its type, a pointer to its value and
/// the value's size, and the size a getter returned: 40 bytes. An array of them ends with one whose name is null.
/// </summary>
// Safety: the struct only carries pointers to memory its builder keeps pinned (the name is a static UTF-8 literal, the
// value a caller's fixed buffer) for the one libcrypto call that reads it; nothing here dereferences them.
[StructLayout(LayoutKind.Sequential)]
internal unsafe struct OsslParam
{
    public byte* Key;
    public uint DataType;
    public void* Data;
    public nuint DataSize;
    public nuint ReturnSize;

    /// <summary>An octet-string parameter over <paramref name="length"/> bytes at <paramref name="data"/>.</summary>
    public static OsslParam OctetString(byte* key, void* data, int length) =>
        new() { Key = key, DataType = Libcrypto.OSSL_PARAM_OCTET_STRING, Data = data, DataSize = (nuint)length, ReturnSize = nuint.MaxValue };
}
