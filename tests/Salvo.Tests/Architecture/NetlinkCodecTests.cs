using System.Text.RegularExpressions;

namespace Salvo.Tests.Architecture;

/// <summary>
/// rtnetlink has one codec, src/Common/Interop/Linux/Netlink, compiled into the library (AF_XDP's lookups) and the
/// tunnel (its interface's addresses and routes). There were two, each with its own message numbers, structs and
/// attribute readers, and a fix to one (a length check, an acknowledgement's layout) did not reach the other.
/// </summary>
public sealed partial class NetlinkCodecTests
{
    private static readonly string s_common = Path.Combine("src", "Common") + Path.DirectorySeparatorChar;

    [Fact]
    public void Source_OutsideCommon_DefinesNoRtnetlinkMessageStructOrConstant()
    {
        var root = SourceTree.RepositoryRoot();
        var offenders = SourceTree.CSharpFiles(Path.Combine(root, "src"))
            .Where(file => !Path.GetRelativePath(root, file).StartsWith(s_common, StringComparison.Ordinal))
            .SelectMany(file => Definitions(File.ReadAllText(file)).Select(definition => $"{Path.GetRelativePath(root, file)}: {definition}"))
            .ToList();

        Assert.Empty(offenders);
    }

    [Fact]
    public void SourceScan_SeesTheDefinitionsInCommon()
    {
        // Guards the test above against passing because its patterns match nothing.
        var found = SourceTree.CSharpFiles(Path.Combine(SourceTree.RepositoryRoot(), s_common))
            .SelectMany(file => Definitions(File.ReadAllText(file)))
            .ToList();

        Assert.Contains(found, definition => definition.Contains("NETLINK_ROUTE", StringComparison.Ordinal));
        Assert.Contains(found, definition => definition.Contains("RTM_NEWROUTE", StringComparison.Ordinal));
        Assert.Contains(found, definition => definition.Contains("RTA_DST", StringComparison.Ordinal));
        Assert.Contains(found, definition => definition.Contains("NlMsgHdr", StringComparison.Ordinal));
    }

    [Theory]
    [InlineData("public const ushort RTM_NEWROUTE = 24;")]
    [InlineData("private const ushort AttributeDestination = 1; const int NETLINK_ROUTE = 0;")]
    [InlineData("internal struct NlMsgHdr { public uint Length; }")]
    [InlineData("public const ushort NewRoute = 24;")]
    [InlineData("private const ushort RTA_TABLE = 15;")]
    public void Definitions_OfTheOldCopies_AreFound(string source)
    {
        Assert.NotEmpty(Definitions(source));
    }

    /// <summary>
    /// Constants named as the kernel names them (NETLINK_ROUTE, RTM_*, RTA_*, NLMSG_*) or as the measuring tool's copy
    /// named the message types (NewRoute, GetRoute), and structs shaped after nlmsghdr, rtmsg, ifaddrmsg, ifinfomsg,
    /// ndmsg and rtattr.
    /// </summary>
    private static IEnumerable<string> Definitions(string source) =>
        KernelConstant().Matches(source).Concat(MessageTypeConstant().Matches(source)).Concat(MessageStruct().Matches(source))
            .Select(match => match.Value);

    [GeneratedRegex(@"\b(NETLINK_ROUTE|(RTM|RTA|NLMSG)_[A-Z_]+)\s*=")]
    private static partial Regex KernelConstant();

    [GeneratedRegex(@"\b(New|Get|Del)(Route|Link|Addr|Address|Neigh)\s*=\s*\d")]
    private static partial Regex MessageTypeConstant();

    [GeneratedRegex(@"\bstruct\s+(NlMsgHdr|NlMsgHeader|RtMsg|IfAddrMsg|IfInfoMsg|NdMsg|RtAttr)\b", RegexOptions.IgnoreCase)]
    private static partial Regex MessageStruct();
}
