namespace Salvo.Tests.Architecture;

/// <summary>
/// Code that two places needed has one home: one Internet checksum for AF_XDP's frames and the tunnel's TUN offloads
/// (in src/Common), one mmap import for io_uring and AF_XDP (in the Linux platform layer's Interop, not io_uring's),
/// and AF_XDP's "one socket per interface" rule in one sentence that the server's options and the CLI repeat by
/// asking for it rather than by copying it.
/// </summary>
public sealed class OneHomeTests
{
    [Theory]
    [InlineData("static class InternetChecksum", "src/Common/Internal/InternetChecksum.cs")]
    [InlineData("EntryPoint = \"mmap\"", "src/Salvo/Pal/Linux/Interop/Interop.Mmap.cs")]
    [InlineData("EntryPoint = \"munmap\"", "src/Salvo/Pal/Linux/Interop/Interop.Munmap.cs")]
    [InlineData("public const int MAP_SHARED", "src/Salvo/Pal/Linux/Interop/Constants.Mmap.cs")]
    [InlineData("one AF_XDP socket serves every receive queue", "src/Salvo/Pal/Linux/Xdp/AfXdpLimits.cs")]
    [InlineData("must be the address of one network interface", "src/Salvo/Pal/Linux/Xdp/AfXdpLimits.cs")]
    public void Source_StatesIt_InOneFile(string text, string home)
    {
        var root = SourceTree.RepositoryRoot();

        var files = SourceTree.CSharpFiles(Path.Combine(root, "src"))
            .Where(file => File.ReadAllText(file).Contains(text, StringComparison.Ordinal))
            .Select(file => Path.GetRelativePath(root, file).Replace(Path.DirectorySeparatorChar, '/'));

        Assert.Equal([home], files);
    }
}
