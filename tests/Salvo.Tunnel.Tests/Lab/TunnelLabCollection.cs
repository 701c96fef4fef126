namespace Salvo.Tunnel.Tests.Lab;

/// <summary>Lab tests run one at a time: each moves real traffic, and two at once on two cores would starve each other.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class TunnelLabCollection
{
    public const string Name = "Tunnel lab";
}
