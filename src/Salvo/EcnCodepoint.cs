namespace Salvo;

/// <summary>The two ECN bits of the IP header (RFC 3168).</summary>
public enum EcnCodepoint : byte
{
    /// <summary>Not ECN-capable transport.</summary>
    NotEct = 0,

    /// <summary>ECN-capable transport, ECT(1).</summary>
    Ect1 = 1,

    /// <summary>ECN-capable transport, ECT(0).</summary>
    Ect0 = 2,

    /// <summary>Congestion experienced.</summary>
    CongestionExperienced = 3,
}
