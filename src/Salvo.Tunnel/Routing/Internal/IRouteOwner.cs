namespace Salvo.Tunnel.Routing;

/// <summary>
/// What <see cref="AllowedIps{TPeer}"/> routes to: it keeps the owner's prefixes in the owner itself (packed, see
/// <see cref="PackedPrefixes"/>), so removing a peer or listing its routes needs no table beside the trie, whose
/// entries cost 28 bytes a peer.
/// </summary>
internal interface IRouteOwner
{
    /// <summary>The prefixes routed to this owner, packed; null when none. Only <see cref="AllowedIps{TPeer}"/> writes it.</summary>
    byte[]? OwnedPrefixes { get; set; }
}
