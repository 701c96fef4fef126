namespace Salvo.Tests.Lab;

/// <summary>A fact that needs the two-host lab (Linux, root, iproute2; nftables when asked); skipped with the reason otherwise.</summary>
public sealed class LabFactAttribute : FactAttribute
{
    public LabFactAttribute(bool needsNftables = false)
    {
        var why = NetworkLab.WhyUnavailable();
        if (why is null && needsNftables && !NetworkLab.HasNftables)
        {
            why = "nftables (nft) is not installed";
        }

        if (why is not null)
        {
            Skip = why;
        }
    }
}
