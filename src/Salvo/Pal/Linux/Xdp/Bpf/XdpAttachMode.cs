namespace Salvo.Pal;

/// <summary>How the XDP program is attached to the interface.</summary>
internal enum XdpAttachMode
{
    /// <summary>Native (driver) mode, falling back to generic mode where the driver refuses it; the fallback is reported.</summary>
    Auto,

    /// <summary>In the driver, before an skb exists (XDP_FLAGS_DRV_MODE): the fast path, and the one zero-copy needs.</summary>
    Native,

    /// <summary>In the core stack after the skb is built (XDP_FLAGS_SKB_MODE): any interface, copy mode only, slower.</summary>
    Generic,
}
