using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// The members of include/uapi/linux/bpf.h's union bpf_attr this layer uses, each passed with its own size: the kernel
// reads min(size, sizeof(union bpf_attr)) bytes and requires the rest of its union to be zero (CHECK_ATTR in
// kernel/bpf/syscall.c). Offsets are asserted in LinuxAbiTests.

// Safety: a plain layout; the fixed name buffer is written only within its 16 bytes.
/// <summary>The BPF_MAP_CREATE member: 48 bytes, up to <c>map_ifindex</c>.</summary>
[StructLayout(LayoutKind.Explicit, Size = 48)]
internal unsafe struct BpfMapCreateAttr
{
    [FieldOffset(0)] public uint MapType;
    [FieldOffset(4)] public uint KeySize;
    [FieldOffset(8)] public uint ValueSize;
    [FieldOffset(12)] public uint MaxEntries;
    [FieldOffset(16)] public uint MapFlags;
    [FieldOffset(28)] public fixed byte MapName[16];
}

/// <summary>The BPF_MAP_*_ELEM member: 32 bytes.</summary>
[StructLayout(LayoutKind.Explicit, Size = 32)]
internal struct BpfMapElemAttr
{
    [FieldOffset(0)] public uint MapFd;
    [FieldOffset(8)] public ulong Key;
    [FieldOffset(16)] public ulong Value;
    [FieldOffset(24)] public ulong Flags;
}

// Safety: a plain layout; the fixed name buffer is written only within its 16 bytes.
/// <summary>The BPF_PROG_LOAD member: 72 bytes, up to <c>expected_attach_type</c>.</summary>
[StructLayout(LayoutKind.Explicit, Size = 72)]
internal unsafe struct BpfProgLoadAttr
{
    [FieldOffset(0)] public uint ProgType;
    [FieldOffset(4)] public uint InsnCount;
    [FieldOffset(8)] public ulong Insns;
    [FieldOffset(16)] public ulong License;
    [FieldOffset(24)] public uint LogLevel;
    [FieldOffset(28)] public uint LogSize;
    [FieldOffset(32)] public ulong LogBuffer;
    [FieldOffset(40)] public uint KernelVersion;
    [FieldOffset(44)] public uint ProgFlags;
    [FieldOffset(48)] public fixed byte ProgName[16];
    [FieldOffset(64)] public uint ProgIfIndex;
    [FieldOffset(68)] public uint ExpectedAttachType;
}

/// <summary>The BPF_LINK_CREATE member: 16 bytes for an XDP link (no target-specific tail).</summary>
[StructLayout(LayoutKind.Explicit, Size = 16)]
internal struct BpfLinkCreateAttr
{
    [FieldOffset(0)] public uint ProgFd;
    [FieldOffset(4)] public uint TargetIfIndex;
    [FieldOffset(8)] public uint AttachType;
    [FieldOffset(12)] public uint Flags;
}

/// <summary>The BPF_PROG_TEST_RUN member: 80 bytes; runs a loaded program once on a given packet and reports its verdict.</summary>
[StructLayout(LayoutKind.Explicit, Size = 80)]
internal struct BpfTestRunAttr
{
    [FieldOffset(0)] public uint ProgFd;
    [FieldOffset(4)] public uint ReturnValue;
    [FieldOffset(8)] public uint DataSizeIn;
    [FieldOffset(12)] public uint DataSizeOut;
    [FieldOffset(16)] public ulong DataIn;
    [FieldOffset(24)] public ulong DataOut;
    [FieldOffset(32)] public uint Repeat;
    [FieldOffset(36)] public uint Duration;
}
