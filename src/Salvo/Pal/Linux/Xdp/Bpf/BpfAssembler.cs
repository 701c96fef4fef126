namespace Salvo.Pal;

/// <summary>
/// Collects instructions and resolves forward jumps to named labels, so a program reads top to bottom without
/// hand-counted offsets. A jump's offset counts instructions from the one after it (include/uapi/linux/bpf.h).
/// </summary>
internal sealed class BpfAssembler
{
    private readonly List<BpfInstruction> _instructions = [];
    private readonly List<(int Index, string Label)> _jumps = [];
    private readonly Dictionary<string, int> _labels = new(StringComparer.Ordinal);

    public int Count => _instructions.Count;

    public void Emit(BpfInstruction instruction) => _instructions.Add(instruction);

    /// <summary>Emits a jump whose offset is filled in once <paramref name="label"/> is marked.</summary>
    public void EmitJump(BpfInstruction jump, string label)
    {
        _jumps.Add((_instructions.Count, label));
        _instructions.Add(jump);
    }

    /// <summary>The next instruction emitted is where <paramref name="label"/> jumps to.</summary>
    public void Mark(string label)
    {
        if (!_labels.TryAdd(label, _instructions.Count))
        {
            throw new InvalidOperationException($"BPF label '{label}' is marked twice.");
        }
    }

    public BpfInstruction[] ToArray()
    {
        var program = _instructions.ToArray();
        foreach (var (index, label) in _jumps)
        {
            if (!_labels.TryGetValue(label, out var target))
            {
                throw new InvalidOperationException($"BPF label '{label}' is jumped to but never marked.");
            }

            var offset = target - index - 1;
            if (offset is < 0 or > short.MaxValue)
            {
                throw new InvalidOperationException($"BPF jump to '{label}' goes backwards or too far ({offset}): the verifier refuses loops.");
            }

            program[index] = program[index].WithOffset((short)offset);
        }

        return program;
    }
}
