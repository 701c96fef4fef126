using Salvo.Fuzz.Targets;

namespace Salvo.Fuzz;

/// <summary>Every fuzz target, by name.</summary>
public static class FuzzTargets
{
    public static IReadOnlyList<IFuzzTarget> All { get; } =
    [
        new WireGuardHandshakeTarget(),
        new WireGuardDataTarget(),
        new UapiTarget(),
        new WireGuardConfigTarget(),
        new TunOffloadTarget(),
        new XdpFrameTarget(),
        new Iperf3Target(),
        new SockperfTarget(),
        new SalvoControlTarget(),
        new FramingTarget(),
    ];

    /// <summary>The target called <paramref name="name"/>, or null.</summary>
    public static IFuzzTarget? Find(string name) => All.FirstOrDefault(t => t.Name == name);
}
